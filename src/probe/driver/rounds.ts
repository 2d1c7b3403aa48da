/**
 * Driving a multi round-trip (`input_required`) flow: ask, answer the input requests in the shape
 * they were asked, and retry with a `requestState` (untouched, or one a probe changed).
 *
 * How an outcome is read (the same for every probe, so a control and its subject are read alike):
 * - a JSON-RPC error, or a tool result with `isError: true`, is a refusal;
 * - a result whose `resultType` is absent or `complete` is an acceptance;
 * - `input_required` on a retry that asks the very questions of round 1 again is a refusal (the
 *   server restarted the flow instead of honouring the state); new questions mean the flow moved on;
 * - a result whose `resultType` is `task` (the Tasks extension) is an acceptance too;
 * - a failure (timeout, 5xx, empty or HTML body, dropped connection) is never a refusal, and neither
 *   is an unknown `resultType`: both are read as `failure`, which a probe turns into `errored`.
 *
 * Spec: https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr
 */
import type { ProbeContext } from '../model/probe.js';
import { answerInputs, preferredShape, type AnswerShape } from './answers.js';
import type { Exchange, Outcome } from '../model/wire.js';
import type { IdentityName } from '../model/target.js';
import { leavesOf, type Leaf } from '../evidence/positions.js';
import type { Call } from '../model/call.js';
import { isRecord } from '../model/json.js';

// `Call` lives in call.ts, so the surface map's types need not import this module.
export type { Call } from '../model/call.js';

/** How one outcome reads. `input` is an `input_required` answer. */
export type Reading = 'accepted' | 'refused' | 'input' | 'failure';

/**
 * A `resultType` as a peer would tolerate it: case, `-`, `_` and spaces ignored, so
 * `input_required`, `input-required`, `INPUT_REQUIRED` and `inputRequired` are one.
 */
export function resultTypeOf(result: Record<string, unknown>): string | undefined {
  const type = result['resultType'];
  return typeof type === 'string' ? type.toLowerCase().replace(/[-_\s]/g, '') : undefined;
}

/** Read one outcome (see the module comment). */
export function readOutcome(outcome: Outcome): Reading {
  if (outcome.kind === 'failure') return 'failure';
  if (outcome.kind === 'error') return 'refused';
  const r = outcome.result;
  if (r['isError'] === true) return 'refused';
  const type = resultTypeOf(r);
  if (type === 'inputrequired') return 'input';
  // No `resultType` but input requests: a loosely written multi-round answer.
  if (type === undefined && isRecord(r['inputRequests'])) return 'input';
  // The Tasks extension's answer: the server took the request and runs it as a task.
  if (type === undefined || type === 'complete' || type === 'task') return 'accepted';
  return 'failure';
}

/** A `tools/call` of `name` with `args`. */
export function toolCall(name: string, args: Record<string, unknown>): Call {
  return { method: 'tools/call', params: { name, arguments: args }, subject: name };
}

/** Whether two calls send the same request. */
export function sameCall(a: Call, b: Call): boolean {
  return a.method === b.method && JSON.stringify(a.params) === JSON.stringify(b.params);
}

/** A round 1 that asked for input. */
export interface Asked {
  readonly call: Call;
  readonly exchange: Exchange;
  readonly state: string | undefined;
  readonly inputRequests: Record<string, unknown>;
}

/** Call a tool; when it answers `input_required`, return what it asked. */
export async function ask(
  ctx: ProbeContext,
  call: Call,
  identity: IdentityName,
  label: string,
): Promise<{ exchange: Exchange; reading: Reading; asked?: Asked }> {
  const exchange = await ctx.request(call.method, { ...call.params }, { identity, label });
  const reading = readOutcome(exchange.outcome);
  if (exchange.outcome.kind === 'result' && exchange.outcome.lifted !== undefined)
    ctx.observe(
      'multi-round fields outside result',
      `${call.subject} put ${exchange.outcome.lifted.join(', ')} beside the JSON-RPC result; read as if inside it`,
    );
  if (reading !== 'input' || exchange.outcome.kind !== 'result') return { exchange, reading };
  const r = exchange.outcome.result;
  const state = typeof r['requestState'] === 'string' ? r['requestState'] : undefined;
  const inputRequests = isRecord(r['inputRequests']) ? r['inputRequests'] : {};
  return { exchange, reading, asked: { call, exchange, state, inputRequests } };
}

/** The last exchange of a resumed flow, how it reads, and the params that drew it. */
export interface Resumed {
  readonly exchange: Exchange;
  readonly reading: Reading;
  readonly sent: Record<string, unknown>;
  /** Every retry's exchange, in order (the last is `exchange`). */
  readonly rounds: readonly Exchange[];
  /** Every `requestState` sent, in order: what an answer that repeats them merely repeats. */
  readonly sentStates: readonly string[];
  /** The `alter` change was never sent: the flow ended before its round, or its state had no such field. */
  readonly notApplied?: true;
}

/** Options of {@link resume}. */
export interface ResumeOptions {
  readonly identity: IdentityName;
  readonly label: string;
  /** The `requestState` to send on the first retry (the issued one, or a changed one). */
  readonly state: string | undefined;
  readonly shape: AnswerShape;
  /** The call to retry on; defaults to the call that asked. */
  readonly call?: Call;
  /** Most rounds driven after round 1 (a wizard asks several times). */
  readonly maxRounds?: number;
  /**
   * A change to the state a later round hands out: at retry `round` (2 = the retry that sends the
   * state round 2's answer gave), `change` replaces it. `undefined` from `change` stops the flow
   * there, read as `refused` (the state had no such field).
   */
  readonly alter?: {
    readonly round: number;
    readonly change: (state: string) => string | undefined;
  };
  /** From retry `round` on, another identity sends (and on another call): a replay mid-flow. */
  readonly handover?: {
    readonly round: number;
    readonly identity: IdentityName;
    readonly call?: Call;
  };
}

/** Retry after round 1, and keep answering new questions until the flow completes or stops. */
export async function resume(
  ctx: ProbeContext,
  asked: Asked,
  options: ResumeOptions,
): Promise<Resumed> {
  const call = options.call ?? asked.call;
  const firstKeys = Object.keys(asked.inputRequests).sort().join('\0');
  let requests = asked.inputRequests;
  let state = options.state;
  const maxRounds = options.maxRounds ?? 3;
  const rounds: Exchange[] = [];
  const sentStates: string[] = [];
  for (let round = 1; ; round++) {
    if (options.alter !== undefined && round === options.alter.round && state !== undefined) {
      state = options.alter.change(state);
      if (state === undefined) {
        const last = rounds[rounds.length - 1] as Exchange;
        return {
          exchange: last,
          reading: 'refused',
          sent: {},
          rounds,
          sentStates,
          notApplied: true,
        };
      }
    }
    if (state !== undefined) sentStates.push(state);
    const handed = options.handover !== undefined && round >= options.handover.round;
    const on = handed ? (options.handover?.call ?? call) : call;
    const identity = handed ? (options.handover?.identity ?? options.identity) : options.identity;
    const sent: Record<string, unknown> = {
      ...on.params,
      inputResponses: answerInputs(requests, options.shape),
      ...(state === undefined ? {} : { requestState: state }),
    };
    const label = round === 1 ? options.label : `${options.label} (round ${round + 1})`;
    const exchange = await ctx.request(on.method, sent, { identity, label });
    const reading = readOutcome(exchange.outcome);
    rounds.push(exchange);
    if (reading !== 'input' || exchange.outcome.kind !== 'result') {
      const missed = options.alter !== undefined && round < options.alter.round;
      return {
        exchange,
        reading,
        sent,
        rounds,
        sentStates,
        ...(missed ? { notApplied: true as const } : {}),
      };
    }
    const r = exchange.outcome.result;
    const next = isRecord(r['inputRequests']) ? r['inputRequests'] : {};
    const sameQuestions = Object.keys(next).sort().join('\0') === firstKeys;
    // Asked round 1's questions again: the state was not honoured, the flow started over.
    if (round === 1 && sameQuestions)
      return { exchange, reading: 'refused', sent, rounds, sentStates };
    if (round >= maxRounds) return { exchange, reading: 'refused', sent, rounds, sentStates };
    requests = next;
    state = typeof r['requestState'] === 'string' ? r['requestState'] : undefined;
  }
}

/** A flow whose untouched retry was accepted, or why none was. */
export type Established =
  | {
      readonly ok: true;
      readonly asked: Asked;
      readonly final: Resumed;
      readonly shape: AnswerShape;
    }
  | {
      readonly ok: false;
      readonly reading: Reading;
      readonly exchange: Exchange;
      readonly why: string;
    };

/**
 * Run a flow with the state untouched. When the retry is refused in one answer shape, a fresh
 * round 1 is answered in the other before the flow is called broken. `asked` is a round 1 already
 * sent (discovery's), reused so it costs no call.
 */
export async function establish(
  ctx: ProbeContext,
  call: Call,
  identity: IdentityName,
  label: string,
  asked?: Asked,
): Promise<Established> {
  let first =
    asked !== undefined
      ? { asked, reading: 'input' as Reading, exchange: asked.exchange }
      : await ask(ctx, call, identity, `${label}: round 1`);
  if (first.asked === undefined) {
    return { ok: false, reading: first.reading, exchange: first.exchange, why: 'round 1' };
  }
  const preferred = preferredShape(first.asked.inputRequests);
  const shapes: AnswerShape[] = [preferred, preferred === 'spec' ? 'bare' : 'spec'];
  let last: Resumed | undefined;
  for (const [i, shape] of shapes.entries()) {
    if (i > 0) {
      first = await ask(ctx, call, identity, `${label}: round 1 again (${shape} answers)`);
      if (first.asked === undefined) {
        return { ok: false, reading: first.reading, exchange: first.exchange, why: 'round 1' };
      }
    }
    const round1 = first.asked as Asked;
    last = await resume(ctx, round1, {
      identity,
      label: `${label}: untouched retry (${shape} answers)`,
      state: round1.state,
      shape,
    });
    if (last.reading === 'accepted') return { ok: true, asked: round1, final: last, shape };
    if (last.reading === 'failure') break;
  }
  const final = last as Resumed;
  return { ok: false, reading: final.reading, exchange: final.exchange, why: 'untouched retry' };
}

/** The result object of an exchange, or `{}`. */
export function resultOf(exchange: Exchange): Record<string, unknown> {
  return exchange.outcome.kind === 'result' ? exchange.outcome.result : {};
}

/** A short, secret-free description of how an exchange ended, for reasons and controls. */
export function describe(exchange: Exchange): string {
  const o = exchange.outcome;
  if (o.kind === 'failure') return `no decision (${o.failure}: ${o.detail.slice(0, 120)})`;
  if (o.kind === 'error') return `JSON-RPC error ${o.code}`;
  if (o.result['isError'] === true) return 'tool error (isError)';
  const type = o.result['resultType'];
  return typeof type === 'string' ? `result (${type})` : 'result';
}

/** How an {@link Established} reads in a control or a reason: `accepted`, or what failed and how. */
export function establishedAs(e: Established): string {
  return e.ok ? 'accepted' : `${e.why}: ${describe(e.exchange)}`;
}

/** What an identity saw of a flow that worked: its round 1 and its final answer. */
export function answersOf(e: Established & { ok: true }): unknown[] {
  return [resultOf(e.asked.exchange), resultOf(e.final.exchange)];
}

/**
 * What `identity` sees running a flow of its own on `call` (an attribution baseline): both answers
 * when it works, the refusal when refused, `undefined` when it drew no decision.
 */
export async function baselineAnswers(
  ctx: ProbeContext,
  call: Call,
  identity: IdentityName,
  label: string,
): Promise<unknown[] | undefined> {
  const own = await establish(ctx, call, identity, label);
  if (own.ok) return answersOf(own);
  return own.reading === 'failure' ? undefined : [resultOf(own.exchange)];
}

/** Options of {@link retryFresh}. */
export interface FreshRetry {
  /** Who asks round 1 (the state's owner). */
  readonly owner: IdentityName;
  /** Who sends the retry; defaults to the owner. */
  readonly sender?: IdentityName;
  readonly label: string;
  readonly shape: AnswerShape;
  /** The state to send, from the fresh one; `undefined` means this state has no such change. */
  readonly change: (state: string) => string | undefined;
  /**
   * The retry whose state is changed: 1 (default) changes round 1's state; 2 drives round 1 untouched
   * and changes the state round 2's answer hands out; and so on.
   */
  readonly round?: number;
  /** The call the retry is sent on; defaults to the call that asked. */
  readonly retryCall?: Call;
}

/**
 * A fresh round 1, then the retries with a state derived from one round's. Fresh each time, so a
 * server that consumes a state on first use cannot make a later try look refused for that reason
 * alone. `resumed` is absent when the change did not apply (no such field, or no such round).
 */
export async function retryFresh(
  ctx: ProbeContext,
  call: Call,
  o: FreshRetry,
): Promise<{ round1: Exchange; resumed?: Resumed; sentState?: string }> {
  const first = await ask(ctx, call, o.owner, `${o.label}: round 1 as ${o.owner}`);
  if (first.asked?.state === undefined) return { round1: first.exchange };
  const at = o.round ?? 1;
  const sentState = at === 1 ? o.change(first.asked.state) : first.asked.state;
  if (sentState === undefined) return { round1: first.exchange };
  // A later round's change is sent by the sender on the retry call from that round on; the rounds
  // before it are the owner's, on the call that asked.
  const handover =
    at === 1 || (o.sender === undefined && o.retryCall === undefined)
      ? undefined
      : {
          round: at,
          identity: o.sender ?? o.owner,
          ...(o.retryCall === undefined ? {} : { call: o.retryCall }),
        };
  const resumed = await resume(ctx, first.asked, {
    identity: handover === undefined ? (o.sender ?? o.owner) : o.owner,
    label: o.label,
    state: sentState,
    shape: o.shape,
    ...(o.retryCall === undefined || handover !== undefined ? {} : { call: o.retryCall }),
    ...(at === 1 ? {} : { alter: { round: at, change: o.change } }),
    ...(handover === undefined ? {} : { handover }),
  });
  if (resumed.notApplied === true) return { round1: first.exchange };
  return { round1: first.exchange, resumed, sentState };
}

/**
 * What a resumed flow answered, round by round, as positioned leaves, with every state it sent
 * masked: the view two runs of one experiment are compared in.
 */
export function viewOf(resumed: Resumed, mask: readonly string[] = []): Leaf[] {
  const rounds = resumed.rounds.map((e) => {
    const o = e.outcome;
    if (o.kind === 'result') return o.result;
    if (o.kind === 'error') return { error: { code: o.code, message: o.message } };
    return { failure: o.failure };
  });
  return leavesOf(rounds, [...resumed.sentStates, ...mask]);
}

/** What one call showed over every round it was driven through. */
export interface Driven {
  /** The last exchange (the final round, or the one that stopped the flow). */
  readonly exchange: Exchange;
  /** How the flow ended: `input` never, a flow stopped mid-way reads as its last round. */
  readonly reading: Reading;
  /** Every round's result object, in order (errors and failures leave none). */
  readonly answers: unknown[];
  /** Every round's params as sent, in order. */
  readonly sent: Record<string, unknown>[];
  /** Whether any round was answered (a result, even `input_required`). */
  readonly answered: boolean;
}

/**
 * `call` driven through when its round 1 (`first`) asked for nothing: that round is the whole
 * flow, read as {@link callThrough} reads it.
 */
export function drivenOnce(
  call: Call,
  first: { readonly exchange: Exchange; readonly reading: Reading },
): Driven {
  const answers: unknown[] =
    first.exchange.outcome.kind === 'result' ? [resultOf(first.exchange)] : [];
  return {
    exchange: first.exchange,
    reading: first.reading,
    answers,
    sent: [call.params],
    answered: answers.length > 0 && first.reading !== 'refused',
  };
}

/**
 * Send `call` as `identity` and, when it answers `input_required`, drive it to completion with its
 * state untouched and the questions answered in the shape asked: an answer the server gives only
 * at the last round (the owner named at completion) is still seen. Every round's answer is kept,
 * so a probe judges on all of them.
 */
export async function callThrough(
  ctx: ProbeContext,
  call: Call,
  identity: IdentityName,
  label: string,
): Promise<Driven> {
  const first = await ask(ctx, call, identity, label);
  if (first.asked === undefined) return drivenOnce(call, first);
  const answers: unknown[] =
    first.exchange.outcome.kind === 'result' ? [resultOf(first.exchange)] : [];
  const sent = [call.params];
  const done = await resume(ctx, first.asked, {
    identity,
    label: `${label} (round 2)`,
    state: first.asked.state,
    shape: preferredShape(first.asked.inputRequests),
  });
  for (const e of done.rounds) if (e.outcome.kind === 'result') answers.push(resultOf(e));
  sent.push(done.sent);
  return { exchange: done.exchange, reading: done.reading, answers, sent, answered: true };
}
