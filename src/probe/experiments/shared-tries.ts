/**
 * Changed states tried on one flow without a fresh round 1 each: what {@link retryFresh} does,
 * at a fraction of the requests, with a control that says when it may not.
 *
 * A try sends a changed state of one round. While the server refuses, the question it refused is
 * still in hand (its state was not honoured), so the next try of that round is sent on it again
 * instead of on a new round 1. Whether a refusal left the state as it was is not assumed: a server
 * may consume a state before it checks it (a single-use ledger that burns first), or lock it after
 * some bad tries. So once the tries are done, every question that served more than one try is sent
 * once more with its state untouched:
 *
 * - honoured (accepted, or the flow goes on to its next question): nothing burnt it, and every
 *   refusal on it was a refusal of the change;
 * - anything else: some refusal may have burnt it, so each try after the first one on it is sent
 *   again from a fresh round 1, and that answer stands.
 *
 * A try that is accepted retires its question (the server may have spent it); the next try of that
 * round starts from a fresh round 1.
 */
import type { ProbeContext } from '../model/probe.js';
import type { AnswerShape } from '../driver/answers.js';
import {
  ask,
  readOutcome,
  resume,
  retryFresh,
  type Asked,
  type Call,
  type Resumed,
} from '../driver/rounds.js';
import type { Exchange } from '../model/wire.js';
import type { IdentityName } from '../model/target.js';
import { isRecord } from '../model/json.js';

/** The rounds a flow is driven through after round 1, as {@link resume} counts them. */
const MAX_RETRIES = 3;

/** One try: the label it is sent under, the change, and the retry whose state it changes. */
export interface SharedTry {
  readonly label: string;
  readonly change: (state: string) => string | undefined;
  /** 1 (default) changes round 1's state; 2 the state round 2's answer hands out; and so on. */
  readonly round?: number;
}

/** A try's answer, as {@link retryFresh} gives it. */
export interface TryResult {
  /** The exchange the flow's first request drew (the fresh round 1 the try went out on). */
  readonly round1: Exchange;
  /** Absent when the change did not apply (no such field, or the flow ended before that round). */
  readonly resumed?: Resumed;
}

/** A question in hand at one round: the flow driven untouched up to it. */
export interface Question {
  readonly round: number;
  readonly round1: Exchange;
  readonly asked: Asked;
  /** The untouched retries before it, and the states they sent. */
  readonly before: readonly Exchange[];
  readonly beforeStates: readonly string[];
  /** Tries sent on it. */
  uses: number;
  /** Tries after the first that came back refused: trusted only once it is honoured untouched. */
  readonly doubtful: { readonly index: number; readonly t: SharedTry }[];
  retired: boolean;
}

/** A doubtful try sent again from a fresh round 1: its index in the order tried, and its answer. */
export interface Redone {
  readonly index: number;
  readonly t: SharedTry;
  readonly result: TryResult;
}

/** Tries of one flow, sharing questions while they are refused. */
export interface SharedTries {
  /** Sends `t`, on the question of its round in hand when there is one. */
  attempt(t: SharedTry): Promise<TryResult>;
  /**
   * `first` (a try made once for the scan, {@link firstTry}) as this flow's first try: its
   * question is then in hand here as if this probe had sent it, so the next try of its round is
   * sent on it while it is refused, and the control at the end covers it as any other.
   */
  adopt(first: FirstTry): TryResult;
  /**
   * The control: each question that served more than one try, sent untouched. The tries whose
   * refusal it does not back are sent again from a fresh round 1 and returned, in the order tried.
   */
  settle(): Promise<Redone[]>;
}

/** Options of {@link sharedTries}: the flow's call, its owner, and the answer shape that works. */
export interface SharedTriesOptions {
  readonly owner: IdentityName;
  readonly shape: AnswerShape;
}

/** The tries of `call`'s flow, as `o.owner`. */
export function sharedTries(ctx: ProbeContext, call: Call, o: SharedTriesOptions): SharedTries {
  const inHand = new Map<number, Question>();
  const asked: Question[] = [];
  let tried = 0;

  return {
    async attempt(t) {
      const index = tried++;
      const round = t.round ?? 1;
      const held = inHand.get(round);
      const q =
        held !== undefined && !held.retired ? held : await questionAt(ctx, call, o, round, t.label);
      if (!('asked' in q)) return q;
      if (q !== held) asked.push(q);
      inHand.set(round, q);
      const state = t.change(q.asked.state as string);
      if (state === undefined) return { round1: q.round1 };
      const resumed = await sendOn(ctx, o, q, t, state);
      q.uses++;
      if (resumed.reading === 'refused' && q.uses > 1) q.doubtful.push({ index, t });
      // An honoured state may be spent: the next try of this round asks afresh.
      if (resumed.reading !== 'refused') q.retired = true;
      return { round1: q.round1, resumed };
    },
    adopt(first) {
      tried++;
      const q = first.question;
      if (q === undefined) return first.result;
      // A copy: this probe's uses of the question are its own.
      const own: Question = { ...q, uses: 1, doubtful: [], retired: first.refused !== true };
      asked.push(own);
      inHand.set(own.round, own);
      return first.result;
    },
    async settle() {
      const redone: Redone[] = [];
      for (const q of asked) {
        if (q.doubtful.length === 0) continue;
        if (await honoured(ctx, q, o)) continue;
        ctx.note(
          `the state ${q.uses} changed tries shared was refused untouched afterwards; ${q.doubtful.length} of them were sent again, each from a fresh round 1`,
        );
        for (const { index, t } of q.doubtful) {
          const result = await retryFresh(ctx, call, {
            owner: o.owner,
            shape: o.shape,
            label: `${t.label} (again, from a fresh round 1)`,
            change: t.change,
            ...(t.round === undefined ? {} : { round: t.round }),
          });
          redone.push({ index, t, result });
        }
      }
      return redone.sort((a, b) => a.index - b.index);
    },
  };
}

/** A try made on its own, and the question it was sent on (absent when it was sent on none). */
export interface FirstTry {
  readonly result: TryResult;
  readonly question?: Question;
  /** The try was refused, so its question's state may still be honoured. */
  readonly refused?: boolean;
}

/**
 * `t` sent as the first try of a flow, on a question of its own: what a shared setup makes once
 * for every probe that tries it first (see {@link SharedTries.adopt}).
 */
export async function firstTry(
  ctx: ProbeContext,
  call: Call,
  o: SharedTriesOptions,
  t: SharedTry,
): Promise<FirstTry> {
  const q = await questionAt(ctx, call, o, t.round ?? 1, t.label);
  if (!('asked' in q)) return { result: q };
  const state = t.change(q.asked.state as string);
  if (state === undefined) return { result: { round1: q.round1 } };
  const resumed = await sendOn(ctx, o, q, t, state);
  return {
    result: { round1: q.round1, resumed },
    question: q,
    refused: resumed.reading === 'refused',
  };
}

/**
 * A question in hand at `round`: `call`'s flow driven untouched up to it from a fresh round 1; or
 * the try's answer when the flow never gets there.
 */
async function questionAt(
  ctx: ProbeContext,
  call: Call,
  o: SharedTriesOptions,
  round: number,
  label: string,
): Promise<Question | TryResult> {
  const first = await ask(ctx, call, o.owner, `${label}: round 1 as ${o.owner}`);
  if (first.asked?.state === undefined) return { round1: first.exchange };
  let at: Asked = first.asked;
  let before: readonly Exchange[] = [];
  let beforeStates: readonly string[] = [];
  if (round > 1) {
    const driven = await resume(ctx, first.asked, {
      identity: o.owner,
      label,
      state: first.asked.state,
      shape: o.shape,
      maxRounds: round - 1,
    });
    const next = askedAgain(first.asked.call, driven.exchange);
    // The flow ended (or drew no decision) before the round this try changes: it does not apply.
    if (next === undefined) return { round1: first.exchange };
    // The untouched retry was asked round 1's questions again: read as refused, as a fresh try is.
    if (driven.rounds.length < round - 1 || sameQuestions(next, first.asked))
      return { round1: first.exchange, resumed: { ...driven, reading: 'refused' } };
    at = next;
    before = driven.rounds;
    beforeStates = driven.sentStates;
  }
  const q: Question = {
    round,
    round1: first.exchange,
    asked: at,
    before,
    beforeStates,
    uses: 0,
    doubtful: [],
    retired: false,
  };
  return q;
}

/** `t`'s changed state sent on the question `q` holds, the flow driven to its end. */
async function sendOn(
  ctx: ProbeContext,
  o: SharedTriesOptions,
  q: Question,
  t: SharedTry,
  state: string,
): Promise<Resumed> {
  const rest = await resume(ctx, q.asked, {
    identity: o.owner,
    label: t.label,
    state,
    shape: o.shape,
    maxRounds: MAX_RETRIES - (q.round - 1),
  });
  return {
    ...rest,
    rounds: [...q.before, ...rest.rounds],
    sentStates: [...q.beforeStates, ...rest.sentStates],
  };
}

/** The question `exchange` asks, as round 1's `Asked` holds it; none when it asks nothing. */
function askedAgain(call: Call, exchange: Exchange): Asked | undefined {
  const o = exchange.outcome;
  if (o.kind !== 'result' || readOutcome(o) !== 'input') return undefined;
  const state = o.result['requestState'];
  if (typeof state !== 'string') return undefined;
  const inputRequests = isRecord(o.result['inputRequests']) ? o.result['inputRequests'] : {};
  return { call, exchange, state, inputRequests };
}

const sameQuestions = (a: Asked, b: Asked): boolean => {
  const keys = (r: Record<string, unknown>): string => Object.keys(r).sort().join('\0');
  return keys(a.inputRequests) === keys(b.inputRequests);
};

/** Whether `q`'s state, sent untouched once more, is still honoured. */
async function honoured(ctx: ProbeContext, q: Question, o: SharedTriesOptions): Promise<boolean> {
  const again = await resume(ctx, q.asked, {
    identity: o.owner,
    label: `control: the state ${q.uses} changed tries shared, untouched (did a refusal spend it?)`,
    state: q.asked.state,
    shape: o.shape,
    maxRounds: 1,
  });
  if (again.reading === 'accepted') return true;
  // Still asking after one retry: honoured if it moved on to other questions.
  const next = askedAgain(q.asked.call, again.exchange);
  return next !== undefined && !sameQuestions(next, q.asked);
}
