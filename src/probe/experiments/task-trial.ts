/**
 * The task probe's trial: A created a task; B presents A's task id to every task method the server
 * offers, beside the same request on B's own task and on a forged id, and A reads its task again
 * to see whether anything B sent changed it.
 *
 * What B learns is judged by experiment, never by the look of one answer: B's answer on A's task
 * against its answer on a forged id (what a task id that names nothing opens) and on its own task
 * (what B is entitled to). An answer on A's task where a forged id is refused, or one that shows
 * A's canary, gave B something of A's. What B changes is judged on A's own reads: A reads its task
 * twice before B acts (so a status that moves by itself is noise), and once after; a canary B sent
 * that shows up in A's task, or a status that moved only after B's accepted request, is B's doing.
 */
import { randomInt } from 'node:crypto';
import {
  errored,
  confirmed,
  refuted,
  type ProbeContext,
  type ProbeDecision,
} from '../model/probe.js';
import { distinctTokens, makeCanary, shows } from '../evidence/markers.js';
import { notOffered, taskRequest, type CreatedTask, type TaskMaker } from './tasks.js';
import { answerInputs } from '../driver/answers.js';
import { describe, readOutcome, resultOf } from '../driver/rounds.js';
import { randomSameShape } from './mutate.js';
import { handleDifference } from './handle-trial.js';
import { refusalView, sameRefusal } from './refusals.js';
import { check, startTrial, type Trial } from './trial.js';
import type { Exchange } from '../model/wire.js';
import { isRecord } from '../model/json.js';

/** The reads of a task: the extension's `tasks/get`, and 2025-11-25's `tasks/result`. */
export const TASK_READS = ['tasks/get', 'tasks/result'] as const;

/**
 * An id the server never minted, shaped like `like`. A counter's id (`task-7`, `42`) forged at
 * the same length would often be somebody's real one, so its number goes far out of range.
 */
export function forgedTaskId(like: string, seen: readonly string[]): string {
  for (let i = 0; i < 8; i++) {
    const counted = /^(\D*?)(\d{1,8})$/.exec(like);
    const forged = counted
      ? `${counted[1] ?? ''}${900_000_000 + randomInt(99_999_999)}`
      : randomSameShape(like);
    if (!seen.includes(forged)) return forged;
  }
  return `${like}-sg-forged`;
}

/** The `status` a task answer names, if any. */
export function statusOf(exchange: Exchange): string | undefined {
  const r = resultOf(exchange);
  const status = r['status'] ?? (isRecord(r['task']) ? r['task']['status'] : undefined);
  return typeof status === 'string' ? status.slice(0, 64) : undefined;
}

/** The answers to a task's `inputRequests`, with `canary` in every free-form string. */
export function taskInputs(
  exchange: Exchange,
  canary: string,
): Record<string, unknown> | undefined {
  const r = resultOf(exchange);
  const asked = isRecord(r['inputRequests'])
    ? r['inputRequests']
    : isRecord(r['task']) && isRecord(r['task']['inputRequests'])
      ? r['task']['inputRequests']
      : undefined;
  if (asked === undefined || Object.keys(asked).length === 0) return undefined;
  const text = JSON.stringify(answerInputs(asked, 'spec'));
  return JSON.parse(text.split('stateguard-probe-answer').join(canary)) as Record<string, unknown>;
}

const accepted = (e: Exchange): boolean => readOutcome(e.outcome) === 'accepted';

/**
 * Bounds on waiting for a task to end: the server's `pollInterval` is honoured within
 * [`minIntervalMs`, `maxIntervalMs`], no wait outlives the task's `ttl`, and no task is polled
 * more than `maxPolls` times or for longer than `maxWaitMs`.
 */
export const TASK_POLL = {
  maxPolls: 10,
  maxWaitMs: 15_000,
  minIntervalMs: 50,
  maxIntervalMs: 2_000,
  defaultIntervalMs: 250,
} as const;

/** Statuses a task does not leave by itself: ended, or waiting on its client. */
const SETTLED = ['completed', 'failed', 'cancelled', 'input_required'];

/** A duration in ms the task answer names (`pollInterval`, `ttl`), if a sane one. */
function msOf(exchange: Exchange, key: string): number | undefined {
  const r = resultOf(exchange);
  const v = r[key] ?? (isRecord(r['task']) ? r['task'][key] : undefined);
  return typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : undefined;
}

/** How polling a task ended. */
export interface Settled {
  /** The last answer on the task: the creation's when it was never polled. */
  readonly last: Exchange;
  readonly status?: string;
  readonly polls: number;
  /** Whether it still runs (`working`, or unknown) when the bounds ran out. */
  readonly running: boolean;
}

/**
 * Poll `taskId` as `who` with `tasks/get` until it leaves `working` (it completed, failed, was
 * cancelled or waits for input), within {@link TASK_POLL} and the task's own `ttl`. A creation
 * answer naming no status is read once. A refused or undecided poll ends the polling: what it
 * means is the trial's to judge, with its controls.
 */
export async function settleTask(
  ctx: ProbeContext,
  taskId: string,
  who: 'A' | 'B',
  created: Exchange,
): Promise<Settled> {
  let last = created;
  let status = statusOf(created);
  const ttl = msOf(created, 'ttl');
  const limit = Math.min(TASK_POLL.maxWaitMs, ttl ?? Infinity);
  const started = Date.now();
  let polls = 0;
  while (
    polls < TASK_POLL.maxPolls &&
    (status === undefined ? polls === 0 : !SETTLED.includes(status))
  ) {
    const asked = msOf(last, 'pollInterval') ?? TASK_POLL.defaultIntervalMs;
    const wait = Math.min(TASK_POLL.maxIntervalMs, Math.max(TASK_POLL.minIntervalMs, asked));
    if (Date.now() - started + wait > limit) break;
    await new Promise((resolve) => setTimeout(resolve, wait));
    const next = await taskRequest(ctx, 'tasks/get', taskId, who, `${who} polls its task`);
    polls++;
    if (!accepted(next)) break;
    last = next;
    status = statusOf(next);
  }
  const running = status === undefined || !SETTLED.includes(status);
  return { last, ...(status === undefined ? {} : { status }), polls, running };
}

/** What the trial found, beside its decision: for the guessable probe's oracle, and notes. */
export interface TaskFindings {
  readonly learned: string[];
  readonly changed: string[];
  readonly refused: string[];
}

/** A's task, B's own and a forged id, as the trial compares them. */
interface TaskPair {
  readonly first: CreatedTask & { taskId: string };
  readonly b: CreatedTask & { taskId: string };
  readonly forged: string;
}

/** What the reads gathered, for the later steps and the verdict. */
interface TaskReads {
  readonly aFirst: unknown[];
  readonly aSecond: unknown[];
  readonly bSees: unknown[];
  firstRead: Exchange | undefined;
  readsOffered: number;
  /** A's status moved between its two reads: a status change after B's request proves nothing. */
  moving: boolean;
}

/**
 * What B and A see of each task before the reads are compared: each task is polled until it
 * ended (its result exists), since a running task holds nothing yet to give away.
 */
async function settleBoth(
  ctx: ProbeContext,
  first: TaskPair['first'],
  b: TaskPair['b'],
): Promise<void> {
  for (const [who, id, made] of [
    ['A', first.taskId, first.exchange],
    ['B', b.taskId, b.exchange],
  ] as const) {
    const settled = await settleTask(ctx, id, who, made);
    if (settled.polls > 0)
      ctx.note(
        `${who}'s task polled ${settled.polls} time(s): ${settled.status ?? 'no status'}${settled.running ? ' (still running when the polling bounds ran out: compared before its end)' : ''}`,
      );
  }
}

/** B's accepted read `m` on A's task, against B's own: what it gave B of A's, if anything. */
function judgeCross(
  trial: Trial,
  m: string,
  answers: { readonly cross: Exchange; readonly own: Exchange; readonly fake: Exchange },
  pair: TaskPair,
  f: TaskFindings,
): void {
  const { cross, own, fake } = answers;
  const { first, b, forged } = pair;
  const fields = Object.keys(resultOf(cross))
    .filter((k) => k !== '_meta')
    .slice(0, 6);
  // A server that answers every id with the caller's own task gave B nothing of A's.
  const ownData =
    !shows(resultOf(cross), first.canary) &&
    (shows(resultOf(cross), b.canary) ||
      handleDifference([resultOf(cross)], [resultOf(own)], [first.taskId, b.taskId, forged])
        .length === 0);
  if (ownData)
    trial.observations.push({
      label: "answered with B's own task",
      detail: `${m} on A's id answered what B's own task answers (the ids blanked)`,
    });
  else if (shows(resultOf(cross), first.canary)) f.learned.push(`${m} showed A's canary`);
  else if (!accepted(fake))
    f.learned.push(`${m} answered A's task (${fields.join(', ')}) where a forged id is refused`);
  else
    trial.observations.push({
      label: 'no task id validation',
      detail: `${m} answered a forged id too: only A's canary or name can confirm`,
    });
}

/**
 * One task read `m`: A reads its task, B its own, A again; then B on a forged id and on A's task.
 * An errored decision when an identity cannot read its own task or a control draws no decision.
 */
async function tryRead(
  ctx: ProbeContext,
  trial: Trial,
  m: (typeof TASK_READS)[number],
  pair: TaskPair,
  reads: TaskReads,
  f: TaskFindings,
): Promise<ProbeDecision | undefined> {
  const tA = pair.first.taskId;
  const { forged } = pair;
  const a1 = await taskRequest(ctx, m, tA, 'A', `A reads its own task (${m})`);
  if (notOffered(a1)) return undefined;
  const own = await taskRequest(ctx, m, pair.b.taskId, 'B', `B reads its own task (${m})`);
  const a2 = await taskRequest(ctx, m, tA, 'A', `A reads its own task again (${m})`);
  if (!accepted(a1) || !accepted(own) || !accepted(a2)) {
    // tasks/result may refuse a task still running; tasks/get must answer its owner.
    if (m !== 'tasks/get') return undefined;
    check(
      trial,
      'bothIdentitiesLive',
      false,
      'A and B each read their own task',
      [a1, own, a2].map(describe).join(' / '),
    );
    return errored('an identity could not read its own task');
  }
  reads.readsOffered++;
  reads.firstRead ??= a1;
  reads.aFirst.push(resultOf(a1));
  reads.aSecond.push(resultOf(a2));
  const fake = await taskRequest(ctx, m, forged, 'B', `B presents a forged task id (${m})`);
  if (readOutcome(fake.outcome) === 'failure') {
    check(trial, 'forgedIdDecided', false, 'a decision on a task id never minted', describe(fake));
    return errored(`the forged-id control drew no decision on ${m}`);
  }
  check(trial, 'forgedIdDecided', true, 'a decision on a task id never minted', describe(fake));
  reads.bSees.push(resultOf(own), resultOf(fake));
  const cross = await taskRequest(ctx, m, tA, 'B', `B presents A's task id (${m})`);
  if (readOutcome(cross.outcome) === 'failure')
    return errored(`B's ${m} on A's task drew no decision: ${describe(cross)}`);
  if (m === 'tasks/get') reads.moving = statusOf(a1) !== statusOf(a2);
  if (accepted(cross)) {
    judgeCross(trial, m, { cross, own, fake }, pair, f);
    return undefined;
  }
  f.refused.push(m);
  if (!sameRefusal(refusalView(cross, tA), refusalView(fake, forged)))
    trial.observations.push({
      label: 'refused unlike a forged id',
      detail: `${m} refused A's id (${refusalView(cross, tA).label}) unlike a forged one (${refusalView(fake, forged).label}): an existence oracle, which handle/task-guessable judges`,
    });
  return undefined;
}

/** The verdict, once every step ran: whether the server tells A and B apart, and what B did. */
function decideTaskPair(
  trial: Trial,
  pair: TaskPair,
  reads: TaskReads,
  f: TaskFindings,
): ProbeDecision {
  const { first, b, forged } = pair;
  const exclude = [first.taskId, b.taskId, forged, first.canary, b.canary];
  const aTokens = distinctTokens([reads.aFirst, reads.aSecond], [reads.bSees], exclude);
  const apart = f.refused.length > 0 || aTokens.length > 0;
  check(
    trial,
    'serverTellsApart',
    apart,
    'the server names something for A (twice) that it never names for B, or refuses B what it gives A',
    aTokens.length > 0
      ? `${aTokens.length} A-only token(s) in A's answers`
      : `refused B on: ${f.refused.join(', ') || 'nothing'}`,
  );
  const found = [...f.learned, ...f.changed];
  if (found.length > 0) {
    if (!apart) return errored('the server did not show that it tells A and B apart');
    return confirmed(`B used A's task id: ${found.join('; ')}`);
  }
  if (!apart) return errored('the server did not show that it tells A and B apart');
  const refusedOn =
    f.refused.length > 0
      ? `B was refused A's task on ${f.refused.join(', ')}`
      : "B's answers on A's task showed nothing of A's";
  return refuted(`${refusedOn}, and nothing of A's task changed`);
}

/** One task maker, tried with the task A created first. */
export async function tryTaskPair(
  ctx: ProbeContext,
  maker: TaskMaker,
  first: CreatedTask & { taskId: string },
): Promise<Trial> {
  const trial = startTrial(`${maker.tool.name} → tasks/*`);
  const done = (d: Trial['decision']): Trial => Object.assign(trial, { decision: d });
  const tA = first.taskId;
  const b = await maker.create('B', 'B creates its own task');
  if (b.taskId === undefined) {
    check(trial, 'bothIdentitiesLive', false, 'B creates a task too', describe(b.exchange));
    return done(errored('B could not create a task of its own, so B is not a live identity'));
  }
  const tB = b.taskId;
  const bTask = { ...b, taskId: tB };
  await settleBoth(ctx, first, bTask);
  const pair: TaskPair = { first, b: bTask, forged: forgedTaskId(tB, [tA, tB]) };
  const f: TaskFindings = { learned: [], changed: [], refused: [] };
  const reads: TaskReads = {
    aFirst: [resultOf(first.exchange)],
    aSecond: [],
    bSees: [resultOf(b.exchange)],
    firstRead: undefined,
    readsOffered: 0,
    moving: false,
  };
  for (const m of TASK_READS) {
    const decision = await tryRead(ctx, trial, m, pair, reads, f);
    if (decision !== undefined) return done(decision);
  }
  check(
    trial,
    'bothIdentitiesLive',
    reads.readsOffered > 0,
    'A and B each read their own task',
    `${reads.readsOffered} task read(s) answered both`,
  );
  if (reads.readsOffered === 0 || reads.firstRead === undefined)
    return done(
      errored('the server declares tasks but answers no task read (tasks/get, tasks/result)'),
    );

  await tryList(ctx, tA, first.canary, f);
  await tryUpdate(ctx, trial, tA, reads.firstRead, f, reads.moving);
  await tryCancel(ctx, trial, maker, f, reads.moving);
  return done(decideTaskPair(trial, pair, reads, f));
}

/** 2025-11-25's `tasks/list`: does B's list show A's task? */
async function tryList(
  ctx: ProbeContext,
  tA: string,
  canary: string,
  f: TaskFindings,
): Promise<void> {
  const own = await ctx.request('tasks/list', {}, { identity: 'A', label: 'A lists its tasks' });
  if (notOffered(own) || !accepted(own)) return;
  const list = await ctx.request('tasks/list', {}, { identity: 'B', label: 'B lists its tasks' });
  if (!accepted(list)) {
    f.refused.push('tasks/list');
    return;
  }
  if (shows(resultOf(list), tA) || shows(resultOf(list), canary))
    f.learned.push("tasks/list showed B A's task");
}

/** `tasks/update` by B on A's task (with a canary), then by A; A's reads say what changed. */
async function tryUpdate(
  ctx: ProbeContext,
  trial: Trial,
  tA: string,
  before: Exchange,
  f: TaskFindings,
  moving: boolean,
): Promise<void> {
  const canaryB = makeCanary('task-update-b');
  const inputs = taskInputs(before, canaryB);
  if (inputs === undefined) {
    ctx.note("tasks/update not tried: A's task asks for no input");
    return;
  }
  const cross = await taskRequest(
    ctx,
    'tasks/update',
    tA,
    'B',
    "B answers A's task (tasks/update)",
    { inputResponses: inputs },
  );
  if (notOffered(cross)) return;
  const after = await taskRequest(ctx, 'tasks/get', tA, 'A', "A reads its task after B's update");
  if (shows(resultOf(after), canaryB))
    f.changed.push("B's tasks/update wrote B's canary into A's task");
  else if (accepted(cross) && !moving && statusOf(after) !== statusOf(before))
    f.changed.push(`A's task went ${statusOf(before)} → ${statusOf(after)} on B's tasks/update`);
  if (accepted(cross) || f.changed.length > 0) return;
  // Refused: it counts only if the owner's own update goes through.
  const own = await taskRequest(ctx, 'tasks/update', tA, 'A', 'A answers its own task', {
    inputResponses: taskInputs(before, makeCanary('task-update-a')),
  });
  const held = check(
    trial,
    'ownerUpdates',
    accepted(own),
    'A answers its own task (tasks/update)',
    describe(own),
  );
  if (held) f.refused.push('tasks/update');
}

/** `tasks/cancel`, only with --include-destructive and on a task this scan created for it. */
async function tryCancel(
  ctx: ProbeContext,
  trial: Trial,
  maker: TaskMaker,
  f: TaskFindings,
  moving: boolean,
): Promise<void> {
  if (!ctx.includeDestructive) {
    ctx.note(
      'tasks/cancel not tried: it changes a task (--include-destructive would try it, on a task this scan creates)',
    );
    return;
  }
  const made = await maker.create('A', 'A creates a task for the cancel test');
  if (made.taskId === undefined) return;
  const before = await taskRequest(ctx, 'tasks/get', made.taskId, 'A', 'A reads it');
  const cross = await taskRequest(ctx, 'tasks/cancel', made.taskId, 'B', "B cancels A's task");
  if (notOffered(cross)) return;
  const after = await taskRequest(
    ctx,
    'tasks/get',
    made.taskId,
    'A',
    "A reads it after B's cancel",
  );
  if (accepted(cross) && !moving && statusOf(after) !== statusOf(before))
    return void f.changed.push(
      `B's tasks/cancel moved A's task ${statusOf(before)} → ${statusOf(after)}`,
    );
  if (accepted(cross)) return;
  const own = await taskRequest(ctx, 'tasks/cancel', made.taskId, 'A', 'A cancels its own task');
  if (check(trial, 'ownerCancels', accepted(own), 'A cancels its own task', describe(own)))
    f.refused.push('tasks/cancel');
}
