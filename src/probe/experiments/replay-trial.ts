/**
 * The principal-replay probe's trial: A's untouched state sent by B, read against two identities
 * that must be told apart and against what B sees anyway without A's state, so that only a marker
 * the state itself carried to B can confirm.
 */
import {
  confirmed,
  errored,
  refuted,
  type ProbeContext,
  type ProbeDecision,
} from '../model/probe.js';
import type { AnswerShape } from '../driver/answers.js';
import {
  answersOf,
  describe,
  establish,
  establishedAs,
  resultOf,
  retryFresh,
  type Call,
  type Established,
  type Resumed,
} from '../driver/rounds.js';
import { distinctTokens, markersOf, markersShown, type Marker } from '../evidence/markers.js';
import { reflectionControl } from './experiment.js';
import { plantControl } from './mutate.js';
import {
  establishFlow,
  prepareCall,
  preparationAs,
  sharedReplayByB,
  type FoundFlow,
  type Prepared,
} from './prepare.js';
import { check, outOfBudget, startTrial, type Trial } from './trial.js';

const APART =
  "the server's answers to A name something its answers to B never do, or it refuses B what it gave A";

/**
 * B replays A's untouched state from `flow` (A's, found by discovery), on A's call and then on B's
 * own, and the trial records the controls (`aUntouchedRetryAccepted`, `bOwnFlowAccepted`,
 * `serverTellsApart`) and its decision; see the probe's rationale for how each is read.
 */
export async function tryReplay(ctx: ProbeContext, flow: FoundFlow): Promise<Trial> {
  const { call, subject, canary: canaryA } = flow.prepared;
  const trial = startTrial(subject);
  const done = (d: Trial['decision']): Trial => Object.assign(trial, { decision: d });

  const own = await ownFlows(ctx, trial, flow);
  if ('decision' in own) return done(own.decision);
  const { a, b, prepB } = own;
  const aTokens = aOnlyTokens(flow.prepared, a, b, prepB);
  const markers = markersOf(canaryA, aTokens);
  const tellsApart = (refused: boolean): boolean => toldApart(trial, aTokens.length, refused);
  const variants = replayVariants(ctx, trial, { call, a, b, prepB });
  let refusedOnA = false;
  const controls = new Map<number, Awaited<ReturnType<typeof reflectionControl>>>();
  let acceptedOn: string | undefined;
  for (const v of variants) {
    const r = await replayOn(ctx, flow, a.shape, v);
    const resumed: Resumed | undefined = r.resumed;
    if (outOfBudget(trial, r.round1) || (resumed && outOfBudget(trial, resumed.exchange))) break;
    if (resumed === undefined) {
      if (v.round > 1) continue;
      return done(errored(`A's fresh round 1 did not ask again: ${describe(r.round1)}`));
    }
    if (resumed.reading === 'failure')
      return done(
        errored(`B's replay of A's state drew no decision: ${describe(resumed.exchange)}`),
      );
    if (resumed.reading !== 'accepted') {
      refusedOnA ||= v.retryCall === call;
      continue;
    }
    acceptedOn ??= v.what;
    const answer = resumed.rounds.map(resultOf);
    const counted = markersShown(answer, markers);
    if (counted.length === 0) continue;
    const baseline = await v.baseline();
    if (baseline === undefined)
      return done(errored(`B's own flow on ${v.what} (attribution control) ${cutOrFailed(trial)}`));
    const seenAnyway = new Set(markersShown(baseline, counted));
    const attributed = counted.filter((m) => !seenAnyway.has(m));
    if (attributed.length === 0) {
      trial.observations.push({
        label: 'A-data reaches B anyway',
        detail: `B's replay on ${v.what} showed A's data, but so did B's own flow there, without A's state`,
      });
      continue;
    }
    if (!tellsApart(false))
      return done(errored('the server did not show that it tells A and B apart'));
    const decided = await controlledReplay(ctx, trial, controls, {
      call,
      shape: a.shape,
      v,
      attributed,
    });
    if (decided !== 'reflected') return done(decided);
  }
  const told = tellsApart(refusedOnA);
  if (trial.outOfBudget) return done(errored('the budget ran out before the replay'));
  if (!told) return done(errored('the server did not show that it tells A and B apart'));
  if (acceptedOn === undefined)
    return done(refuted(`${subject} refused B's replay of A's untouched requestState`));
  if (trial.observations.some((o) => o.label === 'shows back its state'))
    return done(refuted(`B's replay of A's state showed A's data only by showing back the state`));
  trial.observations.push({
    label: "accepted, not shown to be A's",
    detail: `B's replay on ${acceptedOn} was accepted without A's canary or principal in the answer`,
  });
  return done(refuted(`B's replay of A's state showed nothing of A's`));
}

/**
 * B sends A's untouched state as `v` says. On A's own call at round 1 it is one of the error
 * oracle's presentations too, sent once for both when the flow is shared.
 */
async function replayOn(
  ctx: ProbeContext,
  flow: FoundFlow,
  shape: AnswerShape,
  v: Variant,
): Promise<Awaited<ReturnType<typeof retryFresh>>> {
  const { call } = flow.prepared;
  const once =
    v.retryCall === call && v.round === 1 ? await sharedReplayByB(ctx, flow, shape) : undefined;
  return (
    once ??
    retryFresh(ctx, call, {
      owner: 'A',
      sender: 'B',
      label: `B sends A's untouched state on ${v.what}`,
      shape,
      change: (s) => s,
      retryCall: v.retryCall,
      round: v.round,
    })
  );
}

/** One way B's replay was sent: on whose call, at which round, and what B sees there anyway. */
interface Variant {
  readonly what: string;
  readonly retryCall: Call;
  readonly round: number;
  readonly baseline: () => Promise<unknown[] | undefined>;
}

/**
 * B's replay on `v` showed A's data that B's own flow there does not: did the server act on A's
 * state, or only show back the state B sent? The same replay with a control canary planted in a
 * field the state never had; `reflected` when it came back (the replay proves nothing).
 */
async function controlledReplay(
  ctx: ProbeContext,
  trial: Trial,
  controls: Map<number, Awaited<ReturnType<typeof reflectionControl>>>,
  o: {
    readonly call: Call;
    readonly shape: AnswerShape;
    readonly v: Variant;
    readonly attributed: readonly Marker[];
  },
): Promise<ProbeDecision | 'reflected'> {
  const { call, v, attributed } = o;
  // Did the server act on A's state, or only show back the state B sent? The same replay with a
  // control canary planted in a field the state never had.
  // Whether the server shows back its state does not depend on the call: asked once a round.
  const control =
    controls.get(v.round) ??
    (await reflectionControl(
      ctx,
      call,
      {
        owner: 'A',
        sender: 'B',
        shape: o.shape,
        retryCall: v.retryCall,
        round: v.round,
        label: `control: B sends A's state on ${v.what} with a canary in a field never seen`,
      },
      plantControl,
    ));
  controls.set(v.round, control);
  if (control.reflection === 'failure')
    return errored(`the reflection control drew no decision (${control.detail})`);
  if (control.reflection === 'reflected') {
    trial.observations.push({
      label: 'shows back its state',
      detail: `B's replay on ${v.what} showed A's data, but a control canary planted in the state came back too: the server repeats the state it was sent`,
    });
    return 'reflected';
  }
  check(
    trial,
    'controlNotReflected',
    true,
    'a canary planted in a field the state never had does not come back',
    `${control.reflection}: ${control.detail}`,
  );
  const what = attributed.some((m) => m.kind === 'canary')
    ? "A's data (A's canary came back)"
    : `A (A's principal came back: ${attributed.find((m) => m.kind === 'token')?.value ?? ''})`;
  return confirmed(
    `B replayed A's untouched requestState on ${v.what} and was served ${what}, which B's own flow there does not show`,
  );
}

/** A's flow run untouched (the shared one) and B's own: both must work, or the trial's decision. */
async function ownFlows(
  ctx: ProbeContext,
  trial: Trial,
  flow: FoundFlow,
): Promise<
  | { readonly decision: ProbeDecision }
  | {
      readonly a: Established & { ok: true };
      readonly b: Established & { ok: true };
      readonly prepB: Prepared;
    }
> {
  const { subject, flow: recipe } = flow.prepared;
  const a = await establishFlow(ctx, flow, 'A', `${subject} as A`);
  check(
    trial,
    'aUntouchedRetryAccepted',
    a.ok,
    "A's untouched retry is accepted",
    establishedAs(a),
  );
  if (!a.ok)
    return {
      decision: errored(`A's untouched retry of ${subject} did not work (${establishedAs(a)})`),
    };
  const prepB = await prepareCall(ctx, recipe, 'B', 'replay-b');
  const b = prepB.ok
    ? await establish(ctx, prepB.prepared.call, 'B', `${subject} as B`)
    : undefined;
  // Stryker disable next-line StringLiteral: unreachable, \`b\` is undefined only when \`prepB\` failed.
  const bWhy = b === undefined ? (prepB.ok ? '' : preparationAs(prepB)) : establishedAs(b);
  check(trial, 'bOwnFlowAccepted', b?.ok === true, "B's own flow is accepted (B is live)", bWhy);
  if (!prepB.ok || b === undefined || !b.ok)
    return { decision: errored(`B's own flow on ${subject} did not work (${bWhy})`) };

  return { a, b, prepB: prepB.prepared };
}

/**
 * Where B sends A's untouched state: round 1's on A's call, then on B's own; then, for a flow of
 * several rounds, the state a later round handed A, at that round. Each with what B sees there
 * without A's state (its own flow), the attribution baseline.
 */
function replayVariants(
  ctx: ProbeContext,
  trial: Trial,
  o: {
    readonly call: Call;
    readonly a: Established & { ok: true };
    readonly b: Established & { ok: true };
    readonly prepB: Prepared;
  },
): Variant[] {
  const { call, a, b, prepB } = o;
  // What B sees on each call without A's state (its own flow there) is the attribution baseline: an
  // A-marker B sees anyway (A's handle is unbound, a public feed) is not the state's doing.
  let onACall: Promise<unknown[] | undefined> | undefined;
  const aCallBaseline = (): Promise<unknown[] | undefined> =>
    (onACall ??= ownAnswers(ctx, trial, call, "B's own flow on A's call (attribution)"));
  // Round 1's state on A's call, then on B's own; then, for a flow of several rounds, the state a
  // later round handed A, sent by B at that round (a flow whose later state trusts plain fields).
  const later = Array.from({ length: Math.max(0, a.final.sentStates.length - 1) }, (_, i) => ({
    what: `A's call at round ${i + 2}`,
    retryCall: call,
    round: i + 2,
    baseline: aCallBaseline,
  }));
  return [
    { what: "A's call", retryCall: call, round: 1, baseline: aCallBaseline },
    {
      what: "B's own call",
      retryCall: prepB.call,
      round: 1,
      baseline: async () => answersOf(b),
    },
    ...later,
  ];
}

/**
 * B's own flow on `call`, as the attribution baseline: its answers, or undefined when it drew no
 * decision (the trial marked out of budget when the budget is what stopped it).
 */
async function ownAnswers(
  ctx: ProbeContext,
  trial: Trial,
  call: Call,
  label: string,
): Promise<unknown[] | undefined> {
  const own = await establish(ctx, call, 'B', label);
  if (own.ok) return answersOf(own);
  if (outOfBudget(trial, own.exchange) || own.reading === 'failure') return undefined;
  return [resultOf(own.exchange)];
}

/** Why a control drew no decision: the budget ran out, or the target gave none. */
const cutOrFailed = (trial: Trial): string =>
  trial.outOfBudget ? 'was cut short: the budget ran out' : 'drew no decision';

/** The control `serverTellsApart`: A-only tokens in A's answers, or B refused on A's call. */
function toldApart(trial: Trial, tokens: number, refused: boolean): boolean {
  return check(
    trial,
    'serverTellsApart',
    tokens > 0 || refused,
    APART,
    tokens > 0 ? `${tokens} A-only token(s)` : refused ? "B was refused on A's call" : 'none',
  );
}

/** What A's answers name that B's never do, beyond either's canary and handles. */
function aOnlyTokens(
  prepA: Prepared,
  a: Established & { ok: true },
  b: Established & { ok: true },
  prepB: Prepared,
): string[] {
  const exclude = [prepA.canary, prepB.canary, ...prepA.handles, ...prepB.handles];
  return distinctTokens([resultOf(a.final.exchange)], [resultOf(b.final.exchange)], exclude);
}
