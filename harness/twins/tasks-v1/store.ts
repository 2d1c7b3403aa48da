/**
 * The SDK v1 task fixture's two stores, and who is asking.
 *
 * - `sdk-store`: the SDK's own `InMemoryTaskStore`, as its examples use it. It binds a task to the
 *   transport's session id when there is one, and to nobody when there is none: over stdio and
 *   over stateless Streamable HTTP every caller reads every task by its id.
 * - `bound-store`: the same `InMemoryTaskStore` behind the library's task guard
 *   (`createTaskGuard`): the id a client sees is a principal-bound handle that names the SDK's
 *   own id inside, and a task that is not the caller's is not found, whatever the reason.
 *
 * The SDK's `TaskStore` methods are handed a session id, never a principal, so the principal of
 * the request being served travels in an `AsyncLocalStorage` the host sets per message
 * ({@link principals}); work a handler schedules (a timer finishing the task) keeps it.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomBytes } from 'node:crypto';
import { InMemoryTaskStore, type TaskStore } from '@modelcontextprotocol/sdk/experimental/tasks';
import type { Task } from '@modelcontextprotocol/sdk/types.js';
import { createTaskGuard, TaskNotFoundError } from '../../../src/bind/task.js';
import type { FixtureLog } from '../../../src/fixture/log.js';

export const V1_STORES = ['sdk-store', 'bound-store'] as const;
export type V1Store = (typeof V1_STORES)[number];

/** The principal of the request being served (set by the host, per message). */
export const principals = new AsyncLocalStorage<string>();

/** The principal of the request being served; a store reached outside one fails closed. */
export function currentPrincipal(): string {
  const p = principals.getStore();
  if (p === undefined || p.length === 0) throw new Error('no principal for this request');
  return p;
}

/** The SDK's message for a task the caller may not see, as its own store words it. */
const notFound = (taskId: string): Error => new Error(`Task with ID ${taskId} not found`);

/** `inner` behind the library's task guard: every task bound to the principal that created it. */
export function boundStore(inner: TaskStore, log: FixtureLog): TaskStore {
  const guard = createTaskGuard<{ innerId: string }>({
    keys: randomBytes(32),
    audience: 'stateguard-fixture-tasks-v1',
    onRejected: (reason) => log(`[tasks-v1] task id refused (${reason})`),
  });
  // The SDK's id → the id its creator was answered with, for `listTasks` (whose tasks are whose).
  const shown = new Map<string, { taskId: string; owner: string }>();
  /** The SDK's id behind `taskId`, when the caller created it. */
  const innerOf = (taskId: string): string | undefined => {
    try {
      return guard.get(taskId, currentPrincipal()).innerId;
    } catch (error) {
      if (error instanceof TaskNotFoundError) return undefined;
      throw error;
    }
  };
  const mustInner = (taskId: string): string => {
    const id = innerOf(taskId);
    if (id === undefined) throw notFound(taskId);
    return id;
  };
  const outward = (task: Task | null, taskId: string): Task | null =>
    task === null ? null : { ...task, taskId };
  return {
    async createTask(params, requestId, request, sessionId) {
      const owner = currentPrincipal();
      const task = await inner.createTask(params, requestId, request, sessionId);
      const { taskId } = guard.create(owner, { innerId: task.taskId });
      shown.set(task.taskId, { taskId, owner });
      if (shown.size > 5000) shown.delete(shown.keys().next().value as string);
      return { ...task, taskId };
    },
    async getTask(taskId, sessionId) {
      const id = innerOf(taskId);
      return id === undefined ? null : outward(await inner.getTask(id, sessionId), taskId);
    },
    async storeTaskResult(taskId, status, result, sessionId) {
      await inner.storeTaskResult(mustInner(taskId), status, result, sessionId);
    },
    async getTaskResult(taskId, sessionId) {
      return inner.getTaskResult(mustInner(taskId), sessionId);
    },
    async updateTaskStatus(taskId, status, statusMessage, sessionId) {
      await inner.updateTaskStatus(mustInner(taskId), status, statusMessage, sessionId);
    },
    async listTasks(_cursor, sessionId) {
      const caller = currentPrincipal();
      const tasks: Task[] = [];
      for (const [innerId, { taskId, owner }] of shown) {
        if (owner !== caller) continue;
        const task = outward(await inner.getTask(innerId, sessionId), taskId);
        if (task !== null) tasks.push(task);
      }
      return { tasks };
    },
  };
}

/** The store of `mode`, for one process: every connection and request shares it. */
export function v1TaskStore(mode: V1Store, log: FixtureLog): TaskStore {
  const sdk = new InMemoryTaskStore();
  return mode === 'sdk-store' ? sdk : boundStore(sdk, log);
}
