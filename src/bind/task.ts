/**
 * Task ids for the Tasks extension (`io.modelcontextprotocol/tasks`): minted unguessable, bound to
 * the principal that created the task, and refused to everyone else with the answer an unknown id
 * gets.
 *
 * The extension (SEP-2663 §Security) lets a task id be a bearer token but says servers "MUST
 * generate them with sufficient entropy" and "MUST perform authentication and authorization checks
 * on each task-related request". Two weaker designs keep shipping: ids from a counter (`task-1`,
 * `task-2`) in a store every client shares, and a store that checks the owner but answers "not
 * yours" where an unknown id gets "not found", which tells a stranger which ids are live. Here a
 * task id is a principal-bound handle of kind `task` (`createHandleBinder`: 128 random bits, the
 * principal as a keyed tag, AES-256-GCM), and every refusal, whatever its reason, is one frozen
 * JSON-RPC error.
 */
import { HandleRejectedError, type HandleRejection } from '../errors.js';
import type { Principal } from '../seal/binding.js';
import { positiveOption } from '../seal/checks.js';
import type { KeysInput } from '../seal/key.js';
import { createHandleBinder, type HandleBinder, type MintOptions } from './handle.js';
import { createQuotaIndex, quotaOption } from './quota.js';
import { handleStoreKey } from './store.js';

/**
 * The one answer to a task id that is not the caller's: unknown, forged, malformed, expired,
 * deleted, or another principal's. `-32602` is what the extension's `tasks/*` methods answer for an
 * invalid or nonexistent `taskId`. Frozen, so no caller can make two refusals differ by accident.
 */
export const TASK_NOT_FOUND: Readonly<{ code: -32602; message: 'Task not found' }> = Object.freeze({
  code: -32602,
  message: 'Task not found',
} as const);

/** Why a task id was refused: a handle rejection, or `unknown` (no record: never made, deleted). */
export type TaskRejection = HandleRejection | 'unknown';

/**
 * A task id that is not the caller's. Thrown from an SDK request handler it becomes exactly
 * {@link TASK_NOT_FOUND} on the wire (the SDK answers a thrown error's integer `code` and its
 * `message`). `reason` is for the operator's log; it never reaches the client.
 */
export class TaskNotFoundError extends Error {
  readonly code = TASK_NOT_FOUND.code;
  readonly reason: TaskRejection;
  constructor(reason: TaskRejection) {
    // Opaque: never the task id, the principal or the reason.
    super(TASK_NOT_FOUND.message);
    this.name = 'TaskNotFoundError';
    this.reason = reason;
  }
}

/** Options of {@link createTaskGuard}. */
export interface TaskGuardOptions {
  /** One secret (≥ 32 bytes) or a ring: the first mints, every one opens. */
  keys: KeysInput;
  /** The server's name: a task id minted for one audience never opens for another. */
  audience: string;
  /** Lifetime of a task (its id and its record). Default 3600 s. */
  ttlSeconds?: number;
  /**
   * Most live tasks kept. When full, the expired go first, then the oldest task of the principal
   * holding the most tasks, never one of a principal holding fewer. Default 10,000.
   */
  maxTasks?: number;
  /**
   * Most tasks one principal holds. A principal creating one more loses its own oldest task, never
   * another principal's. Anonymous tasks (`allowAnonymous`) have no principal to count against and
   * are bounded by `maxTasks` alone, as one holder. Default 1,000.
   */
  maxTasksPerPrincipal?: number;
  /** Longest task id read before it is refused, undecoded. Default 512 characters. */
  maxTaskIdBytes?: number;
  /**
   * Let a task be created without a principal (a server that authenticates no one): its id is then
   * a bearer token resting on its 128 random bits and its lifetime. Default `false`, so a server that
   * forgets to pass the principal fails loudly instead.
   */
  allowAnonymous?: boolean;
  /** Receives the reason of every refusal, for the server log. Never answer it to the client. */
  onRejected?: (reason: TaskRejection) => void;
  /** Clock in milliseconds, like `Date.now`. */
  now?: () => number;
}

/** A task as created: the id to answer with, and its times (ms since the epoch). */
export interface CreatedTask {
  readonly taskId: string;
  readonly createdAt: number;
  readonly expiresAt: number;
}

/**
 * Tasks of one process, each readable and changeable only by the principal that created it. Every
 * method that takes a task id throws {@link TaskNotFoundError} for an id that is not the caller's,
 * with one message whatever the reason, so that "not yours" and "never existed" look the same.
 */
export interface TaskGuard<T> {
  /** Create a task for `principal` holding `record`; answer with its `taskId`. */
  create(principal: Principal | undefined, record: T, options?: MintOptions): CreatedTask;
  /** The record of `taskId`, when `principal` created it. */
  get(taskId: unknown, principal: Principal | undefined): T;
  /** Replace the record of `taskId` (a status change, input answered), when `principal` created it. */
  update(taskId: unknown, principal: Principal | undefined, record: T): void;
  /** Remove `taskId` and return its last record, when `principal` created it. */
  delete(taskId: unknown, principal: Principal | undefined): T;
  /** Live tasks held (expired ones may linger until the next creation). */
  readonly size: number;
}

const KIND = 'task';

/**
 * Create a task guard: the store a `tasks/get`, `tasks/update` and `tasks/cancel` handler reads
 * through. Records live in this process's memory; the ids themselves verify without it (a fleet
 * sharing `keys` agrees on whose an id is, though each instance knows only its own records).
 *
 * @example
 * const tasks = createTaskGuard<{ status: string }>({ keys: [process.env.STATE_KEY!], audience: 'exports' });
 * const { taskId } = tasks.create(principal, { status: 'working' });
 * // tasks/get, as anyone: the creator gets the record; everyone else gets TASK_NOT_FOUND
 * const task = tasks.get(params.taskId, principalOf(ctx));
 */
export function createTaskGuard<T>(options: TaskGuardOptions): TaskGuard<T> {
  const tasks = createTasks<T>(options);
  const { records } = tasks;
  return {
    create: (principal, record, mintOptions) => createTask(tasks, principal, record, mintOptions),
    get: (taskId, principal) =>
      (records.get(keyOf(tasks, taskId, principal)) as { record: T }).record,
    update(taskId, principal, record) {
      const key = keyOf(tasks, taskId, principal);
      const held = records.get(key) as { expiresAt: number; owner: string };
      records.set(key, { record, expiresAt: held.expiresAt, owner: held.owner });
    },
    delete(taskId, principal) {
      const key = keyOf(tasks, taskId, principal);
      const held = records.get(key) as { record: T };
      drop(tasks, key);
      return held.record;
    },
    get size() {
      return records.size;
    },
  };
}

/** What a task guard holds: the binder that mints and opens ids, the records and their quota. */
interface Tasks<T> {
  readonly binder: HandleBinder;
  readonly quota: ReturnType<typeof createQuotaIndex>;
  readonly records: Map<string, { record: T; expiresAt: number; owner: string }>;
  readonly maxTasks: number;
  readonly now: () => number;
  readonly onRejected: TaskGuardOptions['onRejected'];
}

/** Checks the options (TypeError, RangeError) and starts with no task. */
function createTasks<T>(options: TaskGuardOptions): Tasks<T> {
  if (typeof options !== 'object' || options === null) throw new TypeError('options are required');
  const ttlSeconds = positiveOption('ttlSeconds', options.ttlSeconds, 3600);
  const maxTasks = Math.floor(positiveOption('maxTasks', options.maxTasks, 10_000));
  const now = options.now ?? Date.now;
  const binder: HandleBinder = createHandleBinder({
    keys: options.keys,
    audience: options.audience,
    ttlSeconds,
    maxHandleBytes: positiveOption('maxTaskIdBytes', options.maxTaskIdBytes, 512),
    ...(options.allowAnonymous === true ? { allowAnonymous: true } : {}),
    now,
  });
  const quota = createQuotaIndex(
    quotaOption('maxTasksPerPrincipal', options.maxTasksPerPrincipal, 1_000),
  );
  return { binder, quota, records: new Map(), maxTasks, now, onRejected: options.onRejected };
}

/** {@link TaskGuard.create}. */
function createTask<T>(
  tasks: Tasks<T>,
  principal: Principal | undefined,
  record: T,
  mintOptions: MintOptions | undefined,
): CreatedTask {
  const { handle, claims } = tasks.binder.issue(principal, KIND, mintOptions);
  const owner = claims.principalTag ?? '';
  makeRoom(tasks, owner);
  const key = handleStoreKey(claims);
  tasks.records.set(key, { record, expiresAt: claims.expiresAt, owner });
  tasks.quota.add(owner, key);
  return { taskId: handle, createdAt: claims.issuedAt, expiresAt: claims.expiresAt };
}

/** Forget a task, in the records and in its principal's quota. */
function drop(tasks: Tasks<unknown>, key: string): void {
  const held = tasks.records.get(key);
  if (held === undefined) return;
  tasks.records.delete(key);
  tasks.quota.remove(held.owner, key);
}

function refuse(tasks: Tasks<unknown>, reason: TaskRejection): never {
  tasks.onRejected?.(reason);
  throw new TaskNotFoundError(reason);
}

/** The store key of a task id the caller owns: the binder checks principal, audience, expiry. */
function keyOf(tasks: Tasks<unknown>, taskId: unknown, principal: Principal | undefined): string {
  try {
    const key = handleStoreKey(tasks.binder.open(taskId, principal, KIND));
    const held = tasks.records.get(key);
    if (held === undefined || held.expiresAt <= tasks.now()) return refuse(tasks, 'unknown');
    return key;
  } catch (error) {
    if (error instanceof HandleRejectedError) return refuse(tasks, error.reason);
    throw error;
  }
}

/** Room for one more task of `owner` (`''` for anonymous tasks, which no quota counts). */
function makeRoom(tasks: Tasks<unknown>, owner: string): void {
  const { records, quota, maxTasks } = tasks;
  if (records.size >= maxTasks) {
    const at = tasks.now();
    for (const [key, held] of records) if (held.expiresAt <= at) drop(tasks, key);
  }
  // A principal at its quota loses its own oldest; a full store, the oldest of whoever holds the
  // most (quota.ts). Its creator then gets TASK_NOT_FOUND, as for an expired task; the store
  // never grows without bound on a client's say-so, and never shrinks on another client's.
  for (
    let victim = quota.victim(owner, records.size >= maxTasks, owner === '');
    victim !== undefined;
    victim = quota.victim(owner, records.size >= maxTasks, owner === '')
  ) {
    drop(tasks, victim[1]);
    quota.remove(victim[0], victim[1]);
  }
}
