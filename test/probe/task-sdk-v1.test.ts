/**
 * The task probes on a 2025-11-25 server built with the official SDK's 1.x package and its
 * experimental tasks (`harness/twins/tasks-v1/`), on both transports: the scanner speaks that era's
 * task wire (the `initialize` handshake, `capabilities.tasks`, `params.task` on a `tools/call` to
 * a tool declaring `execution.taskSupport`, `{ task }` answers, `tasks/get` polled to the end,
 * `tasks/result` and `tasks/list`), so `handle/task-cross-principal` confirms the IDOR of the SDK's
 * own `InMemoryTaskStore` (B's `tasks/result` answers A's report with A's canary) and refutes the
 * same store behind the library's task guard. A scanner that skips the legacy era, sends no
 * `params.task`, or judges a `working` task reads skipped or errored here.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { V1_EXPECTED, tasksV1Fixture } from '../../harness/twins/tasks-v1/index.js';
import { V1_TASK_TOOL } from '../../harness/twins/tasks-v1/server.js';
import type { RunReport } from '../../src/probe/model/report.js';
import type { TransportKind } from '../../src/probe/model/target.js';
import { itHasVerdict, probesNamed, requestsSent, scanTwin } from '../helpers/twin-scans.js';

const IDS = ['handle/task-cross-principal', 'handle/task-guessable'] as const;
const PROBES = probesNamed(IDS);

const scan = (variant: string, transport: TransportKind): Promise<RunReport> =>
  scanTwin(tasksV1Fixture, variant, transport, {
    probes: PROBES,
    // tasks/cancel is tried over HTTP only (--include-destructive), on a task the scan created.
    includeDestructive: transport === 'http',
  });

const result = (r: RunReport, id: string) => r.probes.find((p) => p.id === id);

for (const transport of ['http', 'stdio'] as const) {
  for (const variant of tasksV1Fixture.variants) {
    describe(`SDK v1 task server (${variant}) over ${transport}`, () => {
      let report: RunReport;
      beforeAll(async () => {
        report = await scan(variant, transport);
      }, 150_000);

      it('is scanned as a 2025-11-25 server', () => {
        expect(report.protocol.era).toBe('legacy');
        expect(report.protocol.protocolVersion).toBe('2025-11-25');
      });
      const expected = V1_EXPECTED[variant as keyof typeof V1_EXPECTED];
      for (const [id, verdict] of Object.entries(expected)) itHasVerdict(() => report, id, verdict);

      it('creates tasks with params.task only on the tool that declares taskSupport', () => {
        const calls = requestsSent(result(report, 'handle/task-cross-principal')).filter(
          (m) => m.method === 'tools/call',
        );
        const augmented = calls.filter((m) => m.params['task'] !== undefined);
        expect(augmented.length).toBeGreaterThanOrEqual(2);
        for (const m of augmented) expect(m.params['name']).toBe(V1_TASK_TOOL);
        for (const m of calls.filter((c) => c.params['name'] !== V1_TASK_TOOL))
          expect(m.params['task']).toBeUndefined();
      });

      it("polls A's working task with tasks/get to its end before B presents A's id", () => {
        const r = result(report, 'handle/task-cross-principal');
        expect(JSON.stringify(r?.evidence)).toMatch(/A's task polled \d+ time\(s\): completed/);
        const methods = requestsSent(r).map((m) => m.method);
        const firstResult = methods.indexOf('tasks/result');
        expect(firstResult).toBeGreaterThan(0);
        expect(
          methods.slice(0, firstResult).filter((m) => m === 'tasks/get').length,
        ).toBeGreaterThan(2);
      });

      if (variant === 'sdk-store')
        it("confirms on the SDK's own store: B's tasks/result and tasks/list give A's task away", () => {
          const r = result(report, 'handle/task-cross-principal');
          expect(r?.reason).toContain("tasks/result showed A's canary");
          expect(r?.reason).toContain("tasks/list showed B A's task");
          if (transport === 'http')
            expect(r?.reason).toMatch(/B's tasks\/cancel moved A's task working → cancelled/);
        });
      else
        it('refutes the store behind the task guard: B is refused on every read', () => {
          const r = result(report, 'handle/task-cross-principal');
          expect(r?.reason).toMatch(/B was refused A's task on tasks\/get, tasks\/result/);
          if (transport === 'http') {
            expect(r?.reason).toContain('tasks/cancel');
            expect(r?.controls['ownerCancels']?.held).toBe(true);
          }
        });
    });
  }
}
