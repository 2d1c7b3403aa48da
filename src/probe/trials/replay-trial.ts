/**
 * The principal-replay probe's trial: A's untouched state sent by B, read against two identities
 * that must be told apart and against what B sees anyway without A's state, so that only a marker
 * the state itself carried to B can confirm.
 */
import { confirmed, errored, refuted, type ProbeContext } from '../define.js';
import {
  answersOf,
  baselineAnswers,
  describe,
  establish,
  establishedAs,
  resultOf,
  retryFresh,
  type Resumed,
} from './rounds.js';
import { distinctTokens, markersOf, markersShown } from '../evidence/markers.js';
import { reflectionControl } from './experiment.js';
import { plantControl } from './mutate.js';
import { establishFlow, prepareCall, type FoundFlow } from './prepare.js';
import { check, outOfBudget, startTrial, type Trial } from './trial.js';

const APART =
  "the server's answers to A name something its answers to B never do, or it refuses B what it gave A";

/**
 * B replays A's untouched state from `flow` (A's, found by discovery), on A's call and then on B's
 * own, and the trial records the controls (`aUntouchedRetryAccepted`, `bOwnFlowAccepted`,
 * `serverTellsApart`) and its decision; see the probe's rationale for how each is read.
 */
export async function tryReplay(ctx: ProbeContext, flow: FoundFlow): Promise<Trial> {
  const { call, subject, flow: recipe, canary: canaryA, handles: handlesA } = flow.prepared;
  const trial = startTrial(subject);
  const done = (d: Trial['decision']): Trial => Object.assign(trial, { decision: d });

  const a = await establishFlow(ctx, flow, 'A', `${subject} as A`);
  check(
    trial,
    'aUntouchedRetryAccepted',
    a.ok,
    "A's untouched retry is accepted",
    establishedAs(a),
  );
  if (!a.ok)
    return done(errored(`A's untouched retry of ${subject} did not work (${establishedAs(a)})`));
  const prepB = await prepareCall(ctx, recipe, 'B', 'replay-b');
  const b = prepB.ok
    ? await establish(ctx, prepB.prepared.call, 'B', `${subject} as B`)
    : undefined;
  // Stryker disable next-line StringLiteral: unreachable, \`b\` is undefined only when \`prepB\` failed.
  const bWhy = b === undefined ? (prepB.ok ? '' : prepB.why) : establishedAs(b);
  check(trial, 'bOwnFlowAccepted', b?.ok === true, "B's own flow is accepted (B is live)", bWhy);
  if (!prepB.ok || b === undefined || !b.ok)
    return done(errored(`B's own flow on ${subject} did not work`));

  const exclude = [canaryA, prepB.prepared.canary, ...handlesA, ...prepB.prepared.handles];
  const aTokens = distinctTokens(
    [resultOf(a.final.exchange)],
    [resultOf(b.final.exchange)],
    exclude,
  );
  const markers = markersOf(canaryA, aTokens);
  const tellsApart = (refused: boolean): boolean =>
    check(
      trial,
      'serverTellsApart',
      aTokens.length > 0 || refused,
      APART,
      aTokens.length > 0
        ? `${aTokens.length} A-only token(s)`
        : refused
          ? "B was refused on A's call"
          : 'none',
    );
  // What B sees on each call without A's state (its own flow there) is the attribution baseline: an
  // A-marker B sees anyway (A's handle is unbound, a public feed) is not the state's doing.
  let onACall: Promise<unknown[] | undefined> | undefined;
  const aCallBaseline = (): Promise<unknown[] | undefined> =>
    (onACall ??= baselineAnswers(ctx, call, 'B', "B's own flow on A's call (attribution)"));
  // Round 1's state on A's call, then on B's own; then, for a flow of several rounds, the state a
  // later round handed A, sent by B at that round (a flow whose later state trusts plain fields).
  const later = Array.from({ length: Math.max(0, a.final.sentStates.length - 1) }, (_, i) => ({
    what: `A's call at round ${i + 2}`,
    retryCall: call,
    round: i + 2,
    baseline: aCallBaseline,
  }));
  const variants = [
    { what: "A's call", retryCall: call, round: 1, baseline: aCallBaseline },
    {
      what: "B's own call",
      retryCall: prepB.prepared.call,
      round: 1,
      baseline: async () => answersOf(b),
    },
    ...later,
  ];
  let refusedOnA = false;
  const controls = new Map<number, Awaited<ReturnType<typeof reflectionControl>>>();
  let acceptedOn: string | undefined;
  for (const v of variants) {
    const label = `B sends A's untouched state on ${v.what}`;
    const r = await retryFresh(ctx, call, {
      owner: 'A',
      sender: 'B',
      label,
      shape: a.shape,
      change: (s) => s,
      retryCall: v.retryCall,
      round: v.round,
    });
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
      return done(errored(`B's own flow on ${v.what} (attribution control) drew no decision`));
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
          shape: a.shape,
          retryCall: v.retryCall,
          round: v.round,
          label: `control: B sends A's state on ${v.what} with a canary in a field never seen`,
        },
        plantControl,
      ));
    controls.set(v.round, control);
    if (control.reflection === 'failure')
      return done(errored(`the reflection control drew no decision (${control.detail})`));
    if (control.reflection === 'reflected') {
      trial.observations.push({
        label: 'shows back its state',
        detail: `B's replay on ${v.what} showed A's data, but a control canary planted in the state came back too: the server repeats the state it was sent`,
      });
      continue;
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
    return done(
      confirmed(
        `B replayed A's untouched requestState on ${v.what} and was served ${what}, which B's own flow there does not show`,
      ),
    );
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
