/**
 * The task probes on a foreign task server written unlike the first-party one
 * (`harness/twins/foreign/werkstatt/`), on both transports: German names, the task tool ninth of ten
 * and declared nowhere, the customer's key in a header of its own, ids numbered per day (`flawed`)
 * or 128 random bits (`fixed`), a job that stays `working` for several polls, refusals in German.
 * `flawed` confirms both task probes (B reads A's finished report; the next number is predicted),
 * `fixed` refutes both, and `gated` (the report tool answers `-32021` until the client declares the
 * Tasks extension) confirms both once the scanner declared what the `-32021` asked for. A scanner that looks for English words, stops at the sixth tool, or judges
 * a working job reads errored or refuted here.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { werkstatt, WERKSTATT_EXPECTED } from '../../harness/twins/foreign/werkstatt/index.js';
import { BERICHT_TOOL } from '../../harness/twins/foreign/werkstatt/server.js';
import type { RunReport } from '../../src/probe/model/report.js';
import type { TransportKind } from '../../src/probe/model/target.js';
import { itHasVerdict, probesNamed, requestsSent, scanTwin } from '../helpers/twin-scans.js';

const IDS = ['handle/task-cross-principal', 'handle/task-guessable'] as const;
const PROBES = probesNamed(IDS);

const scan = (variant: string, transport: TransportKind): Promise<RunReport> =>
  scanTwin(werkstatt, variant, transport, { probes: PROBES });

const result = (r: RunReport, id: string) => r.probes.find((p) => p.id === id);

for (const transport of ['http', 'stdio'] as const) {
  for (const variant of werkstatt.variants) {
    describe(`werkstatt (${variant}) over ${transport}`, () => {
      let report: RunReport;
      beforeAll(async () => {
        report = await scan(variant, transport);
      }, 150_000);

      const expected = WERKSTATT_EXPECTED[variant as keyof typeof WERKSTATT_EXPECTED];
      for (const [id, verdict] of Object.entries(expected)) itHasVerdict(() => report, id, verdict);

      it('finds the ninth tool, named in German, by calling the tools in the server order', () => {
        const r = result(report, 'handle/task-cross-principal');
        const called = requestsSent(r)
          .filter((m) => m.method === 'tools/call')
          .map((m) => m.params['name']);
        expect(called.indexOf(BERICHT_TOOL)).toBe(8);
        expect(r?.controls['taskCreated']?.observed).toBe(`${BERICHT_TOOL} answered with a task`);
      });

      it("polls A's working job several times, to its end, before B presents A's number", () => {
        const r = result(report, 'handle/task-cross-principal');
        const polled = /A's task polled (\d+) time\(s\): completed/.exec(
          JSON.stringify(r?.evidence),
        );
        expect(Number(polled?.[1])).toBeGreaterThanOrEqual(3);
      });

      if (variant === 'gated')
        it('declares the Tasks extension the -32021 asked for, once, and every probe call after carries it', () => {
          const r = result(report, 'handle/task-cross-principal');
          // Whoever met the gate first (the survey, or the probe) asked again once, declaring it.
          const evidence = [...(report.surface?.evidence ?? []), ...(r?.evidence ?? [])];
          const retried = evidence.filter(
            (e) =>
              (e.kind === 'http' || e.kind === 'jsonrpc') &&
              /\(declaring extensions\.io\.modelcontextprotocol\/tasks\)$/.test(e.label),
          );
          expect(retried).toHaveLength(1);
          const calls = requestsSent(r).filter(
            (m) => m.method === 'tools/call' && m.params['name'] === BERICHT_TOOL,
          );
          expect(calls.length).toBeGreaterThanOrEqual(2);
          for (const m of calls)
            expect(JSON.stringify(m.params['_meta'] ?? {})).toContain(
              '"io.modelcontextprotocol/tasks"',
            );
        });
      if (variant !== 'fixed') {
        it("confirms on A's finished report read by B, and on the predicted number", () => {
          expect(result(report, 'handle/task-cross-principal')?.reason).toContain(
            "tasks/get showed A's canary",
          );
          expect(result(report, 'handle/task-guessable')?.reason).toMatch(
            /^sequential task ids: .*predicted auftrag-\d{8}-\d{4}, and the server minted it$/,
          );
        });
      } else {
        it('refutes: B is refused as an unknown number is, and 128 random bits vary', () => {
          expect(result(report, 'handle/task-cross-principal')?.reason).toContain(
            "B was refused A's task on tasks/get",
          );
          expect(result(report, 'handle/task-guessable')?.reason).toContain(
            "A's id is refused to B as an unknown one is",
          );
        });
      }
    });
  }
}
