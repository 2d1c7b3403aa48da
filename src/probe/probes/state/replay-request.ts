import { MRTR_BINDING } from '../../model/references.js';
import {
  confirmed,
  defineProbe,
  errored,
  refuted,
  skipped,
  type ProbeContext,
  type ProbeDecision,
} from '../../model/probe.js';
import {
  describe,
  establish,
  establishedAs,
  resultOf,
  retryFresh,
  sameCall,
  type Established,
} from '../../driver/rounds.js';
import type { TryResult } from '../../experiments/shared-tries.js';
import { distinctTokens, shows } from '../../evidence/markers.js';
import { reflectionControl } from '../../experiments/experiment.js';
import { plantControl } from '../../experiments/mutate.js';
import {
  discoverFlows,
  establishFlow,
  noFlowReason,
  prepareOther,
  sharedMismatch,
  type FoundFlow,
  type Prepared,
} from '../../experiments/prepare.js';
import { check, outOfBudget, report, startTrial, type Trial } from '../../experiments/trial.js';

const RATIONALE = `
The specification says a server SHOULD bind its \`requestState\` to the originating request — the method
and a digest of its salient parameters — and reject it on a request that does not match. Without
that, a state issued to confirm one action confirms another: approve an export of workspace 1, then
send the approval with workspace 2's arguments (or to another tool) and have it honoured.

"Honoured" must mean more than "no error". The probe runs the flow for call 1 (A's first handle, with
canary 1) and for call 2 (the same tool with other arguments: a second handle, canary 2; or another
tool that asks for input) and keeps what call 1's answer says that call 2's never does — canary 1,
handle 1. Then it sends call 2 with a fresh call-1 state. **Confirmed** when that answer shows call-1
data that the request did not carry (arguments searched in every encoding, the \`requestState\` raw:
a field decoded out of the state and acted on is the finding). **Refuted** when the mismatched retry
is refused, or accepted without a trace of call 1 (noted as an observation).

Controls: call 1's untouched retry is accepted; call 2's own flow is accepted; and the two answers
differ (there is something of call 1's to look for), unless the mismatched retry was refused anyway.
A timeout or 5xx on the mismatched retry is never a refusal.

For a flow of several rounds, when round 1's state is refused on call 2, each later round's state
is tried at its round too.

Budget: 32 calls, one pair of calls.`;

export default defineProbe({
  id: 'state/replay-request',
  title: 'A requestState is refused on a different request',
  flaw: 'A requestState is honoured on a different request',
  severity: 'medium',
  rationale: RATIONALE.trim(),
  references: [MRTR_BINDING],
  maxCalls: 32,
  async run(ctx) {
    const found = await discoverFlows(ctx, 'A', {
      limit: 2,
      maxTools: 4,
      tag: 'request-1',
      shared: true,
    });
    const flow = found.flows[0];
    if (flow === undefined) {
      return noFlowReason(ctx, found);
    }
    // Other arguments for the same tool; or, when it takes none, another tool that asks.
    let other: Prepared | undefined;
    {
      const prep = await prepareOther(ctx, flow, 'A', 'request-2');
      // A request with nothing to vary (a fixed resource URI) is no second request.
      if (prep.ok && !sameCall(prep.prepared.call, flow.prepared.call)) other = prep.prepared;
    }
    other ??= found.flows[1]?.prepared;
    if (other === undefined || sameCall(other.call, flow.prepared.call)) {
      return skipped(
        `precondition: a second request to send the state on (${flow.prepared.subject} takes no arguments to vary, and nothing else asks for input)`,
      );
    }
    return report(ctx, [await mismatch(ctx, flow, other)], errored('no trial reached a verdict'));
  },
});

async function mismatch(ctx: ProbeContext, flow: FoundFlow, other: Prepared): Promise<Trial> {
  const first = flow.prepared;
  const trial = startTrial(`${first.subject} → ${other.subject}`);
  const done = (d: Trial['decision']): Trial => Object.assign(trial, { decision: d });

  const one = await establishFlow(ctx, flow, 'A', `call 1 (${first.subject})`);
  check(
    trial,
    'untouchedRetryAccepted',
    one.ok,
    "call 1's untouched retry is accepted",
    establishedAs(one),
  );
  if (!one.ok)
    return done(
      errored(`the untouched retry of ${first.subject} did not work (${establishedAs(one)})`),
    );
  const two = await establish(ctx, other.call, 'A', `call 2 (${other.subject}, other arguments)`);
  check(trial, 'otherCallLive', two.ok, "call 2's own flow is accepted", establishedAs(two));
  if (!two.ok) return done(errored(`call 2's own flow did not work (${establishedAs(two)})`));

  // What only call 1's answer says: its canary, its handle, anything call 2's answer never names.
  const answer1 = resultOf(one.final.exchange);
  const answer2 = resultOf(two.final.exchange);
  const markers = [
    ...(shows(answer1, first.canary) && !shows(answer2, first.canary) ? [first.canary] : []),
    ...distinctTokens([answer1], [answer2], [other.canary, ...other.handles]),
  ];

  const { r, round } = await sendMismatch(ctx, trial, flow, other, one);
  if (outOfBudget(trial, r.round1) || (r.resumed && outOfBudget(trial, r.resumed.exchange)))
    return done(errored('the budget ran out before the mismatched retry'));
  if (r.resumed === undefined)
    return done(errored(`call 1's fresh round 1 did not ask again: ${describe(r.round1)}`));
  const { reading, exchange } = r.resumed;
  check(
    trial,
    'answersDifferByCall',
    markers.length > 0 || reading === 'refused',
    "call 1's answer says something call 2's never does (or the mismatch is refused)",
    `${markers.length} call-1 marker(s)`,
  );
  if (reading === 'failure')
    return done(errored(`the mismatched retry drew no decision: ${describe(exchange)}`));
  if (reading === 'refused')
    return done(
      refuted(
        `${other.subject} refused call 1's requestState on other arguments (${describe(exchange)})`,
      ),
    );
  if (markers.length === 0)
    return done(errored("call 1's and call 2's answers do not differ: nothing to look for"));
  const answer = r.resumed.rounds.map(resultOf);
  const hit = markers.find((m) => shows(answer, m));
  if (hit !== undefined)
    return done(await controlledHit(ctx, trial, { first, other, one, round, hit }));
  trial.observations.push({
    label: 'accepted, not shown to be steered',
    detail: `the mismatched retry was accepted, but its answer showed nothing of call 1's`,
  });
  return done(refuted("the mismatched retry showed nothing of call 1's"));
}

/**
 * Call 2 sent with call 1's state: round 1's first (sent once for this probe and
 * `state/error-oracle` when the flow is shared, {@link sharedMismatch}); for a flow of several
 * rounds whose first mismatch is refused, the state each later round handed call 1, sent at that
 * round on call 2. The answer that stands, and the round it was sent at.
 */
async function sendMismatch(
  ctx: ProbeContext,
  trial: Trial,
  flow: FoundFlow,
  other: Prepared,
  one: Established & { ok: true },
): Promise<{ r: TryResult; round: number }> {
  const first = flow.prepared;
  // Round 1's state first; for a flow of several rounds whose first mismatch is refused, the state
  // each later round handed call 1, sent at that round on call 2 (a later state may trust plain
  // fields while the first is sealed).
  const mismatchAt = (round: number) =>
    retryFresh(ctx, first.call, {
      owner: 'A',
      label: `call 2 sent with call 1's state${round > 1 ? ` at round ${round}` : ''}`,
      shape: one.shape,
      change: (s) => s,
      retryCall: other.call,
      round,
    });
  let round = 1;
  let r: TryResult =
    (await sharedMismatch(ctx, flow, other.call, one.shape)) ?? (await mismatchAt(round));
  const rounds = one.final.sentStates.length;
  for (let k = 2; k <= rounds && r.resumed?.reading === 'refused'; k++) {
    const later = await mismatchAt(k);
    if (outOfBudget(trial, later.round1)) break;
    if (later.resumed === undefined || later.resumed.reading === 'refused') continue;
    [r, round] = [later, k];
  }
  return { r, round };
}

/**
 * Call 1's data showed in call 2's answer: acted on call 1's state, or only showed back the state
 * it was sent? The same mismatch with a control canary planted in a field the state never had.
 */
async function controlledHit(
  ctx: ProbeContext,
  trial: Trial,
  o: {
    readonly first: Prepared;
    readonly other: Prepared;
    readonly one: Established & { ok: true };
    readonly round: number;
    readonly hit: string;
  },
): Promise<ProbeDecision> {
  const { first, other, one, round, hit } = o;
  // Acted on call 1's state, or only showed back the state it was sent? The same mismatch with a
  // control canary planted in a field the state never had.
  const control = await reflectionControl(
    ctx,
    first.call,
    {
      owner: 'A',
      shape: one.shape,
      retryCall: other.call,
      round,
      label: "control: call 2 with call 1's state and a canary in a field never seen",
    },
    plantControl,
  );
  if (control.reflection === 'failure')
    return errored(`the reflection control drew no decision (${control.detail})`);
  if (control.reflection !== 'reflected') {
    check(
      trial,
      'controlNotReflected',
      true,
      'a canary planted in a field the state never had does not come back',
      `${control.reflection}: ${control.detail}`,
    );
    const what = hit === first.canary ? "call 1's canary" : `call 1's data (${hit})`;
    return confirmed(
      `call 2 sent with call 1's requestState was answered with ${what}, which call 2's own flow never shows: the state is not bound to its request`,
    );
  }
  trial.observations.push({
    label: 'shows back its state',
    detail: `the mismatched retry showed call 1's data, but a control canary planted in the state came back too: the server repeats the state it was sent`,
  });
  return refuted("the mismatched retry showed call 1's data only by showing back its state");
}
