/**
 * The task probes proven in all four verdicts, on both transports, against the task fixture's
 * variants: `unbound` confirms `handle/task-cross-principal`, `sequential` and `leaky-not-found`
 * confirm `handle/task-guessable` (the oracle alone at low severity), `fixed` refutes both,
 * `broken` (the owner cannot read its own task) errors both, `no-tasks` skips both; a task that
 * runs a while is polled to its end, so `slow-finished-leak` (A's finished result served to B)
 * confirms the cross-principal probe and `slow` refutes it; and the handle
 * probe skips every variant (a task answer is no discovery failure). One scan per
 * variant and transport carries every assertion on it. HTTP scans run with
 * `--include-destructive`, stdio scans without, so `tasks/cancel` is shown gated both ways.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { TASK_EXPECTED, taskFixture } from '../../harness/twins/tasks/index.js';
import type { RunReport } from '../../src/probe/model/report.js';
import type { TransportKind } from '../../src/probe/model/target.js';
import { itHasVerdict, probesNamed, requestsSent, scanTwin } from '../helpers/twin-scans.js';

const IDS = [
  'handle/task-cross-principal',
  'handle/task-guessable',
  'handle/cross-principal',
] as const;
const PROBES = probesNamed(IDS);

const scan = (variant: string, transport: TransportKind): Promise<RunReport> =>
  scanTwin(taskFixture, variant, transport, {
    probes: PROBES,
    includeDestructive: transport === 'http',
  });

const reports = new Map<string, Promise<RunReport>>();
const reportOf = (variant: string, transport: TransportKind): Promise<RunReport> => {
  const key = `${variant} ${transport}`;
  let r = reports.get(key);
  if (r === undefined) {
    r = scan(variant, transport);
    r.catch(() => undefined);
    reports.set(key, r);
  }
  return r;
};

for (const transport of ['http', 'stdio'] as const) {
  for (const variant of taskFixture.variants) {
    describe(`task fixture ${variant} over ${transport}`, () => {
      let report: RunReport;
      beforeAll(async () => {
        report = await reportOf(variant, transport);
      }, 120_000);
      const expected = TASK_EXPECTED[variant as keyof typeof TASK_EXPECTED];
      it('has the task probes and the handle probe to check', () =>
        expect(Object.keys(expected)).toEqual([...IDS]));
      for (const [id, verdict] of Object.entries(expected)) itHasVerdict(() => report, id, verdict);

      if (variant === 'unbound') {
        it(`tries tasks/cancel only ${transport === 'http' ? 'with' : 'without'} --include-destructive, on a task this scan created`, () => {
          const r = report.probes.find((p) => p.id === 'handle/task-cross-principal');
          const messages = requestsSent(r);
          expect(messages.length).toBeGreaterThan(5);
          const cancels = messages.filter((m) => m.method === 'tasks/cancel');
          if (transport === 'stdio') {
            expect(cancels).toHaveLength(0);
            expect(JSON.stringify(r?.evidence)).toContain('tasks/cancel not tried');
            return;
          }
          expect(cancels.length).toBeGreaterThan(0);
          expect(r?.reason).toContain('tasks/cancel');
          // The cancelled id is one this scan's own creations answered with.
          const created = JSON.stringify(
            r?.evidence.filter((e) => JSON.stringify(e).includes('"resultType":"task"')),
          );
          for (const c of cancels) expect(created).toContain(c.params.taskId);
        });
        it("confirms on A's canary read and on B's canary written into A's task", () => {
          const r = report.probes.find((p) => p.id === 'handle/task-cross-principal');
          expect(r?.reason).toContain("tasks/get showed A's canary");
          expect(r?.reason).toContain("B's tasks/update wrote B's canary into A's task");
        });
      }
      if (variant === 'sequential')
        it('confirms the ids by minting the one it predicted, at the probe severity', () => {
          const r = report.probes.find((p) => p.id === 'handle/task-guessable');
          expect(r?.reason).toMatch(
            /^sequential task ids: .* predicted task-\d+, and the server minted it$/,
          );
          expect(r?.severity).toBe('medium');
        });
      if (variant === 'leaky-not-found')
        it('confirms the existence oracle alone at low severity, both answers shown', () => {
          const r = report.probes.find((p) => p.id === 'handle/task-guessable');
          expect(r?.severity).toBe('low');
          expect(r?.reason).toContain('Task belongs to another client');
          expect(r?.reason).toContain('Task not found');
          const cross = report.probes.find((p) => p.id === 'handle/task-cross-principal');
          expect(cross?.observations.map((o) => o.label)).toContain('refused unlike a forged id');
        });
      if (variant === 'fixed')
        it('refutes with every refusal the same as an unknown id, and names what it tried', () => {
          const cross = report.probes.find((p) => p.id === 'handle/task-cross-principal');
          expect(cross?.reason).toMatch(/refused A's task on tasks\/get.*tasks\/update/);
          const guess = report.probes.find((p) => p.id === 'handle/task-guessable');
          expect(guess?.severity).toBe('medium');
          expect(guess?.reason).toContain("A's id is refused to B as an unknown one is");
        });
      if (variant === 'spanish-eighth')
        it('tries every callable tool in the server order and finds the eighth, named in Spanish', () => {
          const r = report.probes.find((p) => p.id === 'handle/task-cross-principal');
          const called = requestsSent(r)
            .filter((m) => m.method === 'tools/call')
            .map((m) => (m.params as { name?: string }).name);
          expect(called.slice(0, 8)).toEqual([
            'consultar_saldo',
            'listar_clientes',
            'ver_pedido',
            'buscar_producto',
            'mostrar_calendario',
            'leer_nota',
            'obtener_clima',
            'generar_informe',
          ]);
          expect(r?.controls['taskCreated']?.observed).toBe('generar_informe answered with a task');
        });
      if (variant === 'slow' || variant === 'slow-finished-leak')
        it("polls A's running task to its end before B presents A's id", () => {
          const r = report.probes.find((p) => p.id === 'handle/task-cross-principal');
          const messages = requestsSent(r);
          const polls = messages.filter((m) => m.method === 'tasks/get');
          // The creation answered `working`; A polled until it completed, then B was tried.
          expect(JSON.stringify(r?.evidence)).toMatch(/A's task polled \d+ time\(s\): completed/);
          expect(polls.length).toBeGreaterThan(5);
          if (variant === 'slow-finished-leak')
            expect(r?.reason).toContain("tasks/get showed A's canary");
          else expect(r?.reason).toContain("B was refused A's task on tasks/get");
        });
    });
  }
}
