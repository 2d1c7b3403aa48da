import { describe, expect, it } from 'vitest';
import {
  createTaskGuard,
  TASK_NOT_FOUND,
  TaskNotFoundError,
  type TaskRejection,
} from '../../src/index.js';
import { EMPTY_PRINCIPALS } from './empty-principals.js';

const KEY = 'k'.repeat(32);
const ALICE = 'alice';
const BOB = 'bob';

/** The refusal `work` throws, checked to be the one frozen answer, and its reason. */
function refusal(work: () => unknown): TaskRejection {
  let thrown: unknown;
  try {
    work();
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(TaskNotFoundError);
  const e = thrown as TaskNotFoundError;
  expect({ code: e.code, message: e.message }).toEqual(TASK_NOT_FOUND);
  return e.reason;
}

describe('createTaskGuard', () => {
  it('gives the creator its record, updated and deleted', () => {
    const tasks = createTaskGuard<{ status: string }>({ keys: KEY, audience: 'exports' });
    const { taskId, createdAt, expiresAt } = tasks.create(ALICE, { status: 'working' });
    expect(expiresAt - createdAt).toBe(3_600_000);
    expect(tasks.get(taskId, ALICE)).toEqual({ status: 'working' });
    tasks.update(taskId, ALICE, { status: 'completed' });
    expect(tasks.get(taskId, ALICE)).toEqual({ status: 'completed' });
    expect(tasks.delete(taskId, ALICE)).toEqual({ status: 'completed' });
    expect(refusal(() => tasks.get(taskId, ALICE))).toBe('unknown');
    expect(tasks.size).toBe(0);
  });

  it("refuses another principal's task id with the answer an unknown id gets", () => {
    const reasons: TaskRejection[] = [];
    const tasks = createTaskGuard<string>({
      keys: KEY,
      audience: 'exports',
      onRejected: (r) => reasons.push(r),
    });
    const { taskId } = tasks.create(ALICE, 'secret');
    const forged = `${taskId.slice(0, -4)}AAAA`;
    expect(refusal(() => tasks.get(taskId, BOB))).toBe('principal');
    expect(refusal(() => tasks.update(taskId, BOB, 'changed'))).toBe('principal');
    expect(refusal(() => tasks.delete(taskId, BOB))).toBe('principal');
    expect(refusal(() => tasks.get(forged, BOB))).toBe('auth');
    expect(refusal(() => tasks.get('task-1', BOB))).toBe('malformed');
    expect(refusal(() => tasks.get(42, BOB))).toBe('malformed');
    expect(refusal(() => tasks.get('x'.repeat(600), BOB))).toBe('too-large');
    expect(refusal(() => tasks.get(taskId, undefined))).toBe('principal');
    expect(reasons).toHaveLength(8);
    // B's attempts changed nothing of A's.
    expect(tasks.get(taskId, ALICE)).toBe('secret');
  });

  it('mints ids that share nothing but their prefix and key id', () => {
    const tasks = createTaskGuard<number>({ keys: KEY, audience: 'exports' });
    const ids = Array.from({ length: 3 }, (_, i) => tasks.create(ALICE, i).taskId);
    expect(new Set(ids).size).toBe(3);
    for (const id of ids) expect(id.length).toBeGreaterThanOrEqual(64);
    expect(ids.some((id) => id.includes(ALICE))).toBe(false);
  });

  it('never opens a task id for another audience sharing the key', () => {
    const a = createTaskGuard<number>({ keys: KEY, audience: 'exports' });
    const b = createTaskGuard<number>({ keys: KEY, audience: 'imports' });
    const { taskId } = a.create(ALICE, 1);
    b.create(ALICE, 2);
    expect(refusal(() => b.get(taskId, ALICE))).toBe('audience');
  });

  it('refuses an expired task, and makes room by dropping expired then oldest tasks', () => {
    let now = 1_000_000;
    const tasks = createTaskGuard<number>({
      keys: KEY,
      audience: 'exports',
      ttlSeconds: 10,
      maxTasks: 2,
      now: () => now,
    });
    const first = tasks.create(ALICE, 1).taskId;
    now += 11_000;
    expect(refusal(() => tasks.get(first, ALICE))).toBe('expired');
    const second = tasks.create(ALICE, 2).taskId;
    const third = tasks.create(ALICE, 3).taskId;
    expect(tasks.size).toBe(2);
    const fourth = tasks.create(ALICE, 4).taskId;
    expect(tasks.size).toBe(2);
    expect(refusal(() => tasks.get(second, ALICE))).toBe('unknown');
    expect([tasks.get(third, ALICE), tasks.get(fourth, ALICE)]).toEqual([3, 4]);
  });

  it("keeps another principal's task alive however many tasks one principal creates", () => {
    const tasks = createTaskGuard<string>({ keys: KEY, audience: 'exports', maxTasks: 10 });
    const { taskId } = tasks.create(BOB, 'bob-task');
    for (let i = 0; i < 50; i += 1) tasks.create(ALICE, `alice-${i}`);
    expect(tasks.get(taskId, BOB)).toBe('bob-task');
    expect(tasks.size).toBe(10);
  });

  it("ends the oldest task of a principal past its quota, never another principal's", () => {
    const tasks = createTaskGuard<string>({
      keys: KEY,
      audience: 'exports',
      maxTasksPerPrincipal: 2,
    });
    const a1 = tasks.create(ALICE, 'a1').taskId;
    const b1 = tasks.create(BOB, 'b1').taskId;
    const a2 = tasks.create(ALICE, 'a2').taskId;
    const a3 = tasks.create(ALICE, 'a3').taskId;
    expect(refusal(() => tasks.get(a1, ALICE))).toBe('unknown');
    expect([tasks.get(a2, ALICE), tasks.get(a3, ALICE), tasks.get(b1, BOB)]).toEqual([
      'a2',
      'a3',
      'b1',
    ]);
    expect(tasks.size).toBe(3);
  });

  it("counts anonymous tasks against no quota, but ends them before a principal's in a full store", () => {
    const tasks = createTaskGuard<string>({
      keys: KEY,
      audience: 'exports',
      allowAnonymous: true,
      maxTasks: 5,
      maxTasksPerPrincipal: 2,
    });
    const alice = tasks.create(ALICE, 'alice').taskId;
    const anonymous = [1, 2, 3, 4].map((i) => tasks.create(undefined, `anon-${i}`).taskId);
    expect(anonymous.map((id) => tasks.get(id, undefined))).toEqual([
      'anon-1',
      'anon-2',
      'anon-3',
      'anon-4',
    ]);
    const bob = tasks.create(BOB, 'bob').taskId;
    expect(refusal(() => tasks.get(anonymous[0], undefined))).toBe('unknown');
    expect([tasks.get(alice, ALICE), tasks.get(bob, BOB)]).toEqual(['alice', 'bob']);
  });

  it('needs a principal unless allowAnonymous, and rejects bad options by type', () => {
    const tasks = createTaskGuard<number>({ keys: KEY, audience: 'exports' });
    expect(() => tasks.create(undefined, 1)).toThrow(TypeError);
    const open = createTaskGuard<number>({ keys: KEY, audience: 'exports', allowAnonymous: true });
    const { taskId } = open.create(undefined, 1);
    expect(open.get(taskId, undefined)).toBe(1);
    expect(refusal(() => open.get(taskId, ALICE))).toBe('principal');
    expect(() => createTaskGuard({ keys: KEY, audience: 'x', maxTasks: 0 })).toThrow(RangeError);
    expect(() => createTaskGuard({ keys: KEY, audience: 'x', maxTasksPerPrincipal: 0.5 })).toThrow(
      /^maxTasksPerPrincipal must be a finite number of at least 1, got number$/,
    );
    expect(() => createTaskGuard({ keys: 'short', audience: 'x' })).toThrow();
  });

  it.each(EMPTY_PRINCIPALS)(
    'refuses to create a task for %s as for no principal, and never opens a bound task for it',
    (_, empty) => {
      const reasons: TaskRejection[] = [];
      const tasks = createTaskGuard<string>({
        keys: KEY,
        audience: 'exports',
        onRejected: (r) => reasons.push(r),
      });
      expect(() => tasks.create(empty, 'mine')).toThrow(TypeError);
      expect(tasks.size).toBe(0);
      const { taskId } = tasks.create(ALICE, 'secret');
      expect(refusal(() => tasks.get(taskId, empty))).toBe('principal');
      expect(refusal(() => tasks.update(taskId, empty, 'changed'))).toBe('principal');
      expect(refusal(() => tasks.delete(taskId, empty))).toBe('principal');
      expect(reasons).toEqual(['principal', 'principal', 'principal']);
      expect(tasks.get(taskId, ALICE)).toBe('secret');
    },
  );

  it.each(EMPTY_PRINCIPALS)(
    'makes a task created for %s anonymous where anonymous tasks are allowed, as for no principal',
    (_, empty) => {
      const open = createTaskGuard<number>({
        keys: KEY,
        audience: 'exports',
        allowAnonymous: true,
      });
      const { taskId } = open.create(empty, 1);
      expect(open.get(taskId, undefined)).toBe(1);
      expect(open.get(open.create(undefined, 2).taskId, empty)).toBe(2);
      expect(refusal(() => open.get(taskId, ALICE))).toBe('principal');
      expect(refusal(() => open.get(open.create(ALICE, 3).taskId, empty))).toBe('principal');
    },
  );

  it('keeps its answer frozen', () => {
    expect(Object.isFrozen(TASK_NOT_FOUND)).toBe(true);
    expect(TASK_NOT_FOUND).toEqual({ code: -32602, message: 'Task not found' });
  });
});
