/**
 * A server that rate-limits per identity, with one identity over its limit: the fixture's
 * `one-identity` limiter sheds only the second principal to call it (the scan's B), 429 with
 * `Retry-After` over HTTP, in band over stdio, while A is served. A scan gives the verdicts of the
 * flaw table on the flawed and the fixed twin, on both transports, sheds nothing of A's, and counts
 * B's shed requests, the shared ones among them, as shed. When B is shed relentlessly, the probes
 * that need B end errored saying so, and those that need only A still decide.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { expectedFor, WITNESSED_PROBES, type Mode } from '../../src/fixture/flaws.js';
import { startFixtureHttp, type FixtureHttp } from '../../src/fixture/http.js';
import type { ShedOptions } from '../../src/fixture/shed.js';
import { PROBES } from '../../src/probe/runner/registry.js';
import { runScan } from '../../src/probe/runner/scan.js';
import type { Evidence } from '../../src/probe/model/evidence.js';
import type { RunReport } from '../../src/probe/model/report.js';
import type { TransportKind } from '../../src/probe/model/target.js';
import { builtFixtureStdio } from '../helpers/cli.js';

const running: FixtureHttp[] = [];
afterAll(async () => {
  await Promise.all(running.map((f) => f.close()));
});

async function scan(
  mode: Mode,
  transport: TransportKind,
  shed: ShedOptions,
  deadlineMs?: number,
  only?: readonly string[],
): Promise<RunReport> {
  const limits = {
    ...(deadlineMs === undefined ? {} : { deadlineMs }),
    ...(only === undefined
      ? { probes: PROBES }
      : { probes: PROBES.filter((p) => only.includes(p.id)), serial: true }),
  };
  if (transport === 'http') {
    const fixture = await startFixtureHttp({ mode, shed });
    running.push(fixture);
    return runScan({ target: { kind: 'http', url: fixture.url }, ...limits });
  }
  const extra = [
    '--shed',
    shed.mode,
    ...(shed.retryAfter ? ['--shed-retry-after', shed.retryAfter] : []),
  ];
  const { command, args } = builtFixtureStdio(mode, extra);
  return runScan({ target: { kind: 'stdio', command, args }, ...limits });
}

const witnessed = (report: RunReport): Record<string, string> =>
  Object.fromEntries(
    report.probes
      .filter((p) => (WITNESSED_PROBES as readonly string[]).includes(p.id))
      .map((p) => [p.id, p.verdict]),
  );

/** Every exchange of the report: the probes', the shared setup's they cite, discovery's. */
const exchanges = (report: RunReport): Evidence[] =>
  report.probes.flatMap((p) => p.evidence).concat(report.surface?.evidence ?? []);

/** Whether an exchange's answer was load shedding: a 429, or an in-band rate-limit error. */
function shedAnswer(e: Evidence): boolean {
  if (e.kind === 'http') return e.response?.status === 429;
  if (e.kind !== 'jsonrpc') return false;
  return e.received.some(
    (m) => JSON.stringify(m).includes('"error"') && /rate|slow down|busy/i.test(JSON.stringify(m)),
  );
}

describe.concurrent('a limiter that sheds one identity', () => {
  for (const transport of ['http', 'stdio'] as const) {
    for (const mode of ['flawed', 'fixed'] as const) {
      it(`${mode} over ${transport}: the verdicts of the flaw table, only B shed`, async () => {
        const report = await scan(mode, transport, { mode: 'one-identity' });
        expect(witnessed(report)).toEqual(expectedFor(mode, transport));
        const kind = transport === 'http' ? '429' : 'in-band';
        expect(report.shed?.byKind[kind]).toBeGreaterThan(0);
        expect(report.shed?.gaveUp).toBe(0);
        expect(report.shed?.retried).toBe(report.shed?.total);
        const shed = exchanges(report).filter(shedAnswer);
        expect(shed.length).toBeGreaterThan(0);
        for (const e of shed) expect((e as { identity?: string }).identity).toBe('B');
      }, 90_000);
    }
  }
});

/** The label of B's replay of A's state on A's call, which two probes share. */
const SHARED_REPLAY = /^B sends A's untouched state on A's call/;

// The shared replay shed: run one probe after the other, state/replay-principal sends B's own flow
// and then the replay within a second, so the limiter (one request of B's per second) sheds it.
describe.concurrent('a shed request two probes share', () => {
  for (const transport of ['http', 'stdio'] as const) {
    it(`is waited out and sent again, and both read its answer, over ${transport}`, async () => {
      const both = ['state/replay-principal', 'state/error-oracle'];
      const report = await scan('flawed', transport, { mode: 'one-identity' }, undefined, both);
      // Read as a refusal, the 429 would refute state/replay-principal and make the error oracle
      // tell it from the tool's own refusals: the flaw table's verdicts say it was neither.
      expect(witnessed(report)).toEqual({
        'state/replay-principal': 'confirmed',
        'state/error-oracle': 'refuted',
      });
      expect(report.requests?.shared).toBeGreaterThan(0);
      for (const id of both) {
        const evidence = report.probes.find((p) => p.id === id)!.evidence;
        const replay = evidence.filter(
          (e) => (e.kind === 'http' || e.kind === 'jsonrpc') && SHARED_REPLAY.test(e.label),
        );
        // The shed try and the one sent again, the same exchanges in both probes' evidence.
        expect(replay.filter(shedAnswer).length, id).toBeGreaterThan(0);
        expect(
          replay.some((e) => !shedAnswer(e)),
          id,
        ).toBe(true);
        expect(
          evidence.some((e) => e.kind === 'note' && /load shed; waited/.test(e.text)),
          id,
        ).toBe(true);
      }
      expect(report.shed?.gaveUp).toBe(0);
    }, 90_000);
  }
});

/** The witnessed probes that send as B; the others speak as A alone. */
const NEED_B = ['handle/cross-principal', 'state/replay-principal', 'state/error-oracle'];

describe.concurrent('a limiter that sheds one identity relentlessly', () => {
  for (const transport of ['http', 'stdio'] as const) {
    for (const mode of ['flawed', 'fixed'] as const) {
      it(`${mode} over ${transport}: the probes that need B errored, saying why; the others decide`, async () => {
        const deadlineMs = 40_000;
        const started = performance.now();
        const report = await scan(mode, transport, { mode: 'one-identity-relentless' }, deadlineMs);
        expect(performance.now() - started).toBeLessThan(deadlineMs + 5000);
        const expected = expectedFor(mode, transport);
        for (const p of report.probes.filter((q) => q.id in expected)) {
          if (!NEED_B.includes(p.id)) {
            expect(p.verdict, p.id).toBe(expected[p.id as keyof typeof expected]);
            continue;
          }
          expect(p.verdict, p.id).toBe('errored');
          expect(p.reason, p.id).toMatch(
            /the server shed load: (HTTP 429|in-band rate-limit error) ×\d+, waited \d+\.\d s; raise --deadline/,
          );
        }
        // Only B's requests were shed, and B's never got through.
        const shed = exchanges(report).filter(shedAnswer);
        expect(shed.length).toBeGreaterThan(0);
        for (const e of shed) expect((e as { identity?: string }).identity).toBe('B');
        expect(report.shed?.gaveUp).toBeGreaterThan(0);
      }, 90_000);
    }
  }
});
