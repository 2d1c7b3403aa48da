/**
 * The proof: every fixture mode on both transports, scanned once with every probe, gives the verdict
 * the fixture's flaw table (`src/fixture/flaws.ts`) says it must, and each probe is seen producing
 * each of its verdicts. The same reports, rendered for cert-x-gen, give the status seed 004's
 * template rule derives from the table, with a finding for each confirmed probe and no other.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectedFor, MODES, WITNESSED_PROBES, type Mode } from '../../src/fixture/flaws.js';
import { startFixtureHttp, type FixtureHttp } from '../../src/fixture/http.js';
import { fixtureStdioCommand } from '../../harness/fixture/stdio-command.js';
import { PROBES } from '../../src/probe/registry.js';
import { runScan } from '../../src/probe/scan.js';
import type { ProbeResult, RunReport, TransportKind } from '../../src/probe/types.js';
import { certXGen } from '../../src/report/cert-x-gen.js';
import { parseCertXGen, seedStatus } from '../helpers/cert-x-gen.js';

const seen = new Map<string, Set<string>>();

for (const mode of MODES) {
  for (const transport of ['http', 'stdio'] as const satisfies readonly TransportKind[]) {
    describe(`${mode} over ${transport}`, () => {
      let report: RunReport;
      let fixture: FixtureHttp | undefined;

      beforeAll(async () => {
        report = await scan(mode, transport, (f) => (fixture = f));
        for (const p of report.probes) {
          const set = seen.get(p.id) ?? new Set<string>();
          set.add(p.verdict);
          seen.set(p.id, set);
        }
      }, 60_000);
      afterAll(async () => {
        await fixture?.close();
      });

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
          expect(fixture?.stats.archiveCalls).toBe(0);
        });
      }
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

async function scan(
  mode: Mode,
  transport: TransportKind,
  keep: (f: FixtureHttp) => void,
): Promise<RunReport> {
  if (transport === 'http') {
    const fixture = await startFixtureHttp({ mode });
    keep(fixture);
    return runScan({ target: { kind: 'http', url: fixture.url }, probes: PROBES });
  }
  const { command, args } = fixtureStdioCommand(mode);
  return runScan({ target: { kind: 'stdio', command, args }, probes: PROBES });
}
