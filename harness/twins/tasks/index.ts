/**
 * The task fixture: a server that answers `start_export` with a task (the Tasks extension of the
 * 2026-07-28 revision), on Streamable HTTP and stdio, in one variant per task-store mode
 * (`book.ts`) and one without tasks at all. It follows the foreign twins' contract (`twin.ts`), so
 * the same drivers, scans and proof helpers serve it, but it is first-party: the `fixed` variant is
 * how a server uses the library's task guard.
 *
 * With `unbound`, `handle/task-cross-principal` must be CONFIRMED; with `sequential`,
 * `handle/task-guessable` must be CONFIRMED (predictable ids); with `leaky-not-found`,
 * `handle/task-guessable` must be CONFIRMED at low severity (the existence oracle alone); with
 * `fixed`, both must be REFUTED; with `broken`, both ERRORED; with `no-tasks`, both SKIPPED; with
 * `slow`, both REFUTED, and with `slow-finished-leak` the cross-principal probe CONFIRMED once A's
 * task has finished (B is refused it while it runs). In
 * every variant `handle/cross-principal` is SKIPPED: no tool takes a task id back.
 */
import type { Verdict } from '../../../src/probe/model/probe.js';
import { callerFor } from '../foreign/caller.js';
import { hostHttp, hostStdio } from '../foreign/host.js';
import { variantIn, type ForeignTwin, type IdentityCarrier } from '../foreign/twin.js';
import { quietLog, stderrLog, type FixtureLog } from '../../../src/fixture/log.js';
import { TASK_MODES, taskBook } from './book.js';
import { taskServerFactory } from './server.js';
import { nodeEntry } from '../../node-entry.js';

/**
 * `slow` and `slow-finished-leak`: the export asks nothing and runs {@link SLOW_RUN_MS} before its
 * task completes; `slow` keeps it in the library's guard, `slow-finished-leak` checks the owner
 * only while the task runs and serves a finished task (A's result) to anyone with its id.
 * `spanish-eighth`: the `unbound` store, its task tool `generar_informe` listed eighth, after seven
 * Spanish-named tools that answer at once, and declaring nothing of tasks.
 */
export const TASK_VARIANTS = [
  ...TASK_MODES,
  'no-tasks',
  'slow',
  'slow-finished-leak',
  'spanish-eighth',
] as const;
export const SLOW_RUN_MS = 1500;
export type TaskVariant = (typeof TASK_VARIANTS)[number];
const CARRIER: IdentityCarrier = { kind: 'bearer' };

// A task id goes back in through tasks/*, never through a tool: no handle for the handle probe,
// and a task answer must not read as a discovery failure (it would make that probe errored).
const v = (cross: Verdict, guessable: Verdict): Record<string, Verdict> => ({
  'handle/task-cross-principal': cross,
  'handle/task-guessable': guessable,
  'handle/cross-principal': 'skipped',
});

/** The verdict a correct scanner gives, per variant. */
export const TASK_EXPECTED: Readonly<Record<TaskVariant, Readonly<Record<string, Verdict>>>> = {
  fixed: v('refuted', 'refuted'),
  unbound: v('confirmed', 'refuted'),
  sequential: v('refuted', 'confirmed'),
  'leaky-not-found': v('refuted', 'confirmed'),
  broken: v('errored', 'errored'),
  'no-tasks': v('skipped', 'skipped'),
  slow: v('refuted', 'refuted'),
  'slow-finished-leak': v('confirmed', 'refuted'),
  'spanish-eighth': v('confirmed', 'refuted'),
};

function factoryFor(variant: string, transport: 'http' | 'stdio', log: FixtureLog) {
  const checked = variantIn('tasks', TASK_VARIANTS, variant);
  const mode =
    checked === 'no-tasks' || checked === 'slow'
      ? 'fixed'
      : checked === 'slow-finished-leak'
        ? 'finished-unchecked'
        : checked === 'spanish-eighth'
          ? 'unbound'
          : checked;
  const slow = checked === 'slow' || checked === 'slow-finished-leak';
  return taskServerFactory({
    book: taskBook(mode, log),
    callerOf: callerFor(transport, CARRIER),
    tasks: checked !== 'no-tasks',
    ...(slow ? { runMs: SLOW_RUN_MS } : {}),
    spanish: checked === 'spanish-eighth',
  });
}

/** The command that serves `variant` over stdio, built, or from source (see node-entry.ts). */
export function taskStdioCommand(variant: string): { command: string; args: string[] } {
  return {
    command: process.execPath,
    args: [...nodeEntry(import.meta.url, './main.js'), '--variant', variant],
  };
}

export const taskFixture: ForeignTwin = {
  id: 'tasks',
  summary: 'A long-running export answered with a task, its store in each mode tasks ship in',
  variants: TASK_VARIANTS,
  transports: ['http', 'stdio'],
  identity: { http: CARRIER, stdio: CARRIER },
  expected: TASK_EXPECTED,
  startHttp: (variant) =>
    hostHttp({ factory: factoryFor(variant, 'http', quietLog), carrier: CARRIER, path: '/mcp' }),
  serveStdio: (variant) => hostStdio(factoryFor(variant, 'stdio', stderrLog), stderrLog),
  stdioCommand: taskStdioCommand,
};
