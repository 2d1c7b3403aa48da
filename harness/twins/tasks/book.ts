/**
 * Where the task fixture keeps its tasks, one way per mode: the library's guard (`fixed`), and the
 * three ways task stores keep shipping broken.
 *
 * - `fixed`: `createTaskGuard`; ids are bound handles, every refusal is `TASK_NOT_FOUND`.
 * - `unbound`: random UUIDs, looked up by id alone: anyone may read, answer or cancel any task.
 * - `sequential`: `task-1`, `task-2`, … counted for the whole process; the owner is checked.
 * - `leaky-not-found`: random UUIDs, the owner checked, but another principal's id answers "Task
 *   belongs to another client" where an unknown id answers "Task not found": an existence oracle.
 * - `broken`: like `fixed`, but every read is refused, even to the task's creator, so a probe's
 *   control (the owner reads its own task) fails and it must end `errored`.
 * - `finished-unchecked` (for tasks that run a while, not a variant of its own): random UUIDs, the
 *   owner checked while a task runs, but a finished task is served by id alone, as a store that
 *   keeps its results apart from its running tasks does.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import {
  createTaskGuard,
  TASK_NOT_FOUND,
  TaskNotFoundError,
  type TaskRejection,
} from '../../../src/bind/task.js';
import type { FixtureLog } from '../../../src/fixture/log.js';

export const TASK_MODES = ['fixed', 'unbound', 'sequential', 'leaky-not-found', 'broken'] as const;
export type TaskMode = (typeof TASK_MODES)[number];
/** Every store the fixture keeps tasks in: the variant modes, and those only slow tasks use. */
export type BookMode = TaskMode | 'finished-unchecked';

/** A refusal as the wire carries it. */
export interface Refusal {
  readonly code: number;
  readonly message: string;
}

/** One task's record. */
export interface TaskRecord {
  readonly owner: string;
  readonly title: string;
  status: 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';
  readonly createdAt: string;
  lastUpdatedAt: string;
  note?: string;
}

/** The fixture's task store: a record or the refusal to answer. */
export interface TaskBook {
  create(owner: string, record: TaskRecord): string;
  read(taskId: string, caller: string): TaskRecord | Refusal;
  write(taskId: string, caller: string, record: TaskRecord): TaskRecord | Refusal;
}

const MAX_TASKS = 5000;
const NOT_FOUND: Refusal = TASK_NOT_FOUND;
const FINISHED: readonly TaskRecord['status'][] = ['completed', 'failed', 'cancelled'];
const FOREIGN: Refusal = { code: -32602, message: 'Task belongs to another client' };

/** A plain map store: ids from `nextId`, the owner checked unless `unbound`. */
function mapBook(
  nextId: () => string,
  check: 'none' | 'owner' | 'owner-leaky' | 'owner-while-running',
  log: FixtureLog,
): TaskBook {
  const tasks = new Map<string, TaskRecord>();
  const find = (taskId: string, caller: string): TaskRecord | Refusal => {
    const task = tasks.get(taskId);
    if (task === undefined) return NOT_FOUND;
    if (check === 'none' || task.owner === caller) return task;
    if (check === 'owner-while-running' && FINISHED.includes(task.status)) return task;
    log('[tasks] task of another principal refused');
    return check === 'owner-leaky' ? FOREIGN : NOT_FOUND;
  };
  return {
    create(_owner, record) {
      if (tasks.size >= MAX_TASKS) tasks.delete(tasks.keys().next().value as string);
      const id = nextId();
      tasks.set(id, record);
      return id;
    },
    read: find,
    write(taskId, caller, record) {
      const found = find(taskId, caller);
      if ('code' in found) return found;
      tasks.set(taskId, record);
      return record;
    },
  };
}

/** The guarded store, as a server would use the library. */
function guardedBook(log: FixtureLog, readable: boolean): TaskBook {
  const guard = createTaskGuard<TaskRecord>({
    keys: randomBytes(32),
    audience: 'stateguard-fixture-tasks',
    onRejected: (reason: TaskRejection) => log(`[tasks] task id refused (${reason})`),
  });
  const attempt = <R>(work: () => R): R | Refusal => {
    try {
      return work();
    } catch (error) {
      if (error instanceof TaskNotFoundError) return NOT_FOUND;
      throw error;
    }
  };
  return {
    create: (owner, record) => guard.create(owner, record).taskId,
    read: (taskId, caller) => (readable ? attempt(() => guard.get(taskId, caller)) : NOT_FOUND),
    write: (taskId, caller, record) =>
      attempt(() => {
        guard.update(taskId, caller, record);
        return record;
      }),
  };
}

/** The store of `mode`, for one process. */
export function taskBook(mode: BookMode, log: FixtureLog): TaskBook {
  let counter = 0;
  switch (mode) {
    case 'fixed':
      return guardedBook(log, true);
    case 'broken':
      return guardedBook(log, false);
    case 'unbound':
      return mapBook(randomUUID, 'none', log);
    case 'sequential':
      return mapBook(() => `task-${++counter}`, 'owner', log);
    case 'leaky-not-found':
      return mapBook(randomUUID, 'owner-leaky', log);
    case 'finished-unchecked':
      return mapBook(randomUUID, 'owner-while-running', log);
  }
}
