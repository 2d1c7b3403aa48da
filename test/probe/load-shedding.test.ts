/**
 * Fixtures that shed load, each a flawed twin and its fixed twin behind a limiter: a scan gives the
 * verdicts the flaw table gives without the limiter, on both transports where the limiter applies,
 * and says in its report how much was shed and how long it waited. A limiter that never lets up
 * ends the scan's probes errored, saying why, within the deadline, never refuted.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { expectedFor, WITNESSED_PROBES, type Mode } from '../../src/fixture/flaws.js';
import { startFixtureHttp, type FixtureHttp } from '../../src/fixture/http.js';
import type { ShedOptions } from '../../src/fixture/shed.js';
import { PROBES } from '../../src/probe/runner/registry.js';
import { runScan } from '../../src/probe/runner/scan.js';
import type { RunReport } from '../../src/probe/model/report.js';
import type { TransportKind } from '../../src/probe/model/target.js';
import { text } from '../../src/report/text.js';
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
): Promise<RunReport> {
  const limits = deadlineMs === undefined ? {} : { deadlineMs };
  if (transport === 'http') {
    const fixture = await startFixtureHttp({ mode, shed });
    running.push(fixture);
    return runScan({ target: { kind: 'http', url: fixture.url }, probes: PROBES, ...limits });
  }
  const extra = ['--shed', shed.mode, '--shed-retry-after', shed.retryAfter ?? '1'];
  const { command, args } = builtFixtureStdio(mode, extra);
  return runScan({ target: { kind: 'stdio', command, args }, probes: PROBES, ...limits });
}

const verdicts = (report: RunReport): Record<string, string> =>
  Object.fromEntries(
    report.probes
      .filter((p) => (WITNESSED_PROBES as readonly string[]).includes(p.id))
      .map((p) => [p.id, p.verdict]),
  );

const CASES: readonly { transport: TransportKind; shed: ShedOptions; kind: string }[] = [
  // Retry-After: 1 as real servers send it (on the flawed twin), and 0, which must be honoured as
  // "now" (on the fixed one, and on the 503s). Over HTTP the limiters are set tighter than the
  // fixture's defaults, so that a scan slowed by a loaded machine still meets them: two requests
  // in flight at once, ten within a second.
  { transport: 'http', shed: { mode: 'busy', retryAfter: '1', maxInFlight: 1 }, kind: '429' },
  { transport: 'http', shed: { mode: 'in-band', windowMs: 1000 }, kind: 'in-band' },
  { transport: 'http', shed: { mode: 'unavailable', retryAfter: '0' }, kind: '503' },
  { transport: 'stdio', shed: { mode: 'in-band' }, kind: 'in-band' },
];

// The eight scans are independent (each its own fixture) and mostly wait (Retry-After, the
// limiter's window): side by side, as many at once as vitest's maxConcurrency (5) lets run.
describe.concurrent('behind a limiter', () => {
  for (const { transport, shed, kind } of CASES) {
    for (const mode of ['flawed', 'fixed'] as const) {
      describe(`${mode} behind a '${shed.mode}' limiter over ${transport}`, () => {
        it('gives the verdicts of the flaw table, and reports what was shed', async () => {
          const fast = shed.mode === 'busy' && mode === 'fixed';
          const report = await scan(mode, transport, fast ? { ...shed, retryAfter: '0' } : shed);
          expect(verdicts(report)).toEqual(expectedFor(mode, transport));
          const cost = report.shed;
          expect(cost?.byKind[kind as '429' | '503' | 'in-band']).toBeGreaterThan(0);
          expect(cost?.gaveUp).toBe(0);
          expect(cost?.retried).toBe(cost?.total);
          expect(cost?.narrowest).toBeGreaterThanOrEqual(1);
          if (shed.mode === 'busy' && !fast) expect(cost?.waitedMs).toBeGreaterThanOrEqual(900);
          // The evidence keeps each shed try and says it waited and sent again.
          const notes = report.probes
            .flatMap((p) => p.evidence)
            .concat(report.surface?.evidence ?? [])
            .filter((e) => e.kind === 'note' && /load shed; waited/.test(e.text));
          expect(notes.length).toBeGreaterThan(0);
          const shown = text.render(report, { color: false, evidence: 'none' });
          expect(shown).toMatch(
            /^load shed: \d+ answers? \(.+\); \d+ sent again, none lost; requests waited \d+\.\d s in all/m,
          );
        }, 60_000);
      });
    }
  }
});

describe('a limiter that never lets up', () => {
  for (const transport of ['http', 'stdio'] as const) {
    it(`ends every probe that met it errored, saying why, within the deadline, over ${transport}`, async () => {
      const deadlineMs = 6000;
      const started = performance.now();
      const report = await scan('fixed', transport, { mode: 'relentless' }, deadlineMs);
      expect(performance.now() - started).toBeLessThan(deadlineMs + 3000);
      for (const p of report.probes) {
        if (p.id === 'transport/origin') continue; // it calls no tool: nothing of it was shed
        expect(p.verdict, p.id).not.toBe('refuted');
        expect(p.verdict, p.id).not.toBe('confirmed');
      }
      const tried = report.probes.filter(
        (p) => p.id.startsWith('state/') && p.verdict === 'errored',
      );
      expect(tried.length).toBeGreaterThan(0);
      for (const p of tried)
        expect(p.reason).toMatch(
          /the server shed load: (HTTP 429|in-band rate-limit error) ×\d+, waited \d+\.\d s; raise --deadline/,
        );
      expect(report.shed?.gaveUp).toBeGreaterThan(0);
    }, 30_000);
  }
});
