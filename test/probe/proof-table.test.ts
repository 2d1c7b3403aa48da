/**
 * The proof: every fixture mode on both transports, scanned once with every probe, gives the verdict
 * the fixture's flaw table (`src/fixture/flaws.ts`) says it must, and each probe is seen producing
 * each of its verdicts. The same reports, rendered for cert-x-gen, give the status seed 004's
 * template rule derives from the table, with a finding for each confirmed probe and no other.
 *
 * The parallel runner decides as the sequential one does: each mode on each transport scanned again
 * with the probes one after another in registry order (`--serial`) gives the same verdict for every
 * probe (a stdio server reads one line at a time, so probes side by side queue on it). The foreign
 * twins are compared in foreign-proof.test.ts.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { expectedFor, MODES, WITNESSED_PROBES, type Mode } from '../../src/fixture/flaws.js';
import { startFixtureHttp } from '../../src/fixture/http.js';
import { PROBES } from '../../src/probe/runner/registry.js';
import { runScan } from '../../src/probe/runner/scan.js';
import type { ProbeResult, RunReport } from '../../src/probe/model/report.js';
import type { TransportKind } from '../../src/probe/model/target.js';
import { certXGen } from '../../src/report/cert-x-gen.js';
import { parseCertXGen, seedStatus } from '../helpers/cert-x-gen.js';
import { limit } from '../helpers/limit.js';
import { verdicts } from '../helpers/twin-scans.js';
import { builtFixtureStdio } from '../helpers/cli.js';

const seen = new Map<string, Set<string>>();

/** One scan of a mode over a transport, and how often its HTTP fixture was asked to archive. */
interface Scanned {
  readonly report: RunReport;
  readonly archiveCalls?: number;
}

// Every scan queued at once, three at a time; each serial scan right behind its parallel one.
const scans = new Map<string, Promise<Scanned>>();
const queue = limit(3);
const key = (mode: Mode, transport: TransportKind, serial: boolean): string =>
  `${mode} ${transport}${serial ? ' serial' : ''}`;
beforeAll(() => {
  for (const mode of MODES)
    for (const transport of ['http', 'stdio'] as const)
      for (const serial of [false, true])
        scans.set(
          key(mode, transport, serial),
          queue(() => scan(mode, transport, serial)),
        );
});
const scanned = (mode: Mode, transport: TransportKind, serial = false): Promise<Scanned> => {
  const found = scans.get(key(mode, transport, serial));
  if (found === undefined) throw new Error(`${key(mode, transport, serial)} not started`);
  return found;
};

for (const mode of MODES) {
  for (const transport of ['http', 'stdio'] as const satisfies readonly TransportKind[]) {
    describe(`${mode} over ${transport}`, () => {
      let report: RunReport;
      let archiveCalls: number | undefined;

      beforeAll(async () => {
        ({ report, archiveCalls } = await scanned(mode, transport));
        for (const p of report.probes) {
          const set = seen.get(p.id) ?? new Set<string>();
          set.add(p.verdict);
          seen.set(p.id, set);
        }
      }, 240_000);

      const result = (id: string): ProbeResult => {
        const found = report.probes.find((p) => p.id === id);
        if (found === undefined) throw new Error(`no result for ${id}`);
        return found;
      };

      for (const id of WITNESSED_PROBES) {
        const expected = expectedFor(mode, transport)[id];
        it(`${id} is ${expected}`, () => {
          const r = result(id);
          expect({ verdict: r.verdict, reason: r.reason }).toMatchObject({ verdict: expected });
          if (expected === 'confirmed' || expected === 'refuted') {
            expect(Object.values(r.controls).every((c) => c.held)).toBe(true);
            expect(Object.keys(r.controls).length).toBeGreaterThan(0);
          }
        });
      }

      it("renders for cert-x-gen with the seed template's status and confirmed findings only", () => {
        const expected = expectedFor(mode, transport);
        const doc = parseCertXGen(certXGen.render(report, { color: false, evidence: 'full' }));
        expect(doc.metadata.status).toBe(seedStatus(Object.values(expected)));
        const confirmed = Object.entries(expected)
          .filter(([, v]) => v === 'confirmed')
          .map(([id]) => id);
        expect(doc.findings.map((f) => f.evidence.data.probe).sort()).toEqual(confirmed.sort());
      });

      if (mode === 'noguard') {
        it('the handle probe names the missing handle validation', () => {
          const labels = result('handle/cross-principal').observations.map((o) => o.label);
          expect(labels).toContain('no handle validation');
        });
      }
      if (mode === 'broken-flow') {
        it('every state probe names the failed untouched retry', () => {
          for (const id of ['state/tamper', 'state/replay-principal', 'state/replay-request']) {
            expect(result(id).reason).toMatch(/untouched retry/);
          }
        });
      }
      if (transport === 'http') {
        it('never calls the destructive archive_workspace', () => {
          expect(archiveCalls).toBe(0);
        });
      }
      it('one probe after another (--serial): the same verdicts', async () => {
        const serial = await scanned(mode, transport, true);
        expect(verdicts(report)).toEqual(verdicts(serial.report));
        if (transport === 'http') expect(serial.archiveCalls).toBe(0);
      }, 240_000);
    });
  }
}

describe('across the table', () => {
  it('each probe is seen producing each of its verdicts', () => {
    for (const probe of PROBES) {
      const expected = new Set(
        MODES.flatMap((m) =>
          (['http', 'stdio'] as const).map(
            (t) => expectedFor(m, t)[probe.id as (typeof WITNESSED_PROBES)[number]],
          ),
        ),
      );
      expect([...(seen.get(probe.id) ?? [])].sort()).toEqual([...expected].sort());
    }
  });
});

// As in the other proofs: several scans share two busy cores, so the limits are generous enough
// that load never decides a verdict.
const LIMITS = { timeoutMs: 30_000, deadlineMs: 120_000 } as const;

async function scan(mode: Mode, transport: TransportKind, serial: boolean): Promise<Scanned> {
  const plan = { probes: PROBES, serial, ...LIMITS };
  if (transport === 'http') {
    const fixture = await startFixtureHttp({ mode });
    try {
      const report = await runScan({ target: { kind: 'http', url: fixture.url }, ...plan });
      return { report, archiveCalls: fixture.stats.archiveCalls };
    } finally {
      await fixture.close();
    }
  }
  const { command, args } = builtFixtureStdio(mode);
  return { report: await runScan({ target: { kind: 'stdio', command, args }, ...plan }) };
}
