import { MRTR_INTEGRITY } from '../../model/references.js';
import {
  confirmed,
  defineProbe,
  errored,
  refuted,
  type ProbeContext,
  type ProbeDecision,
} from '../../model/probe.js';
import { describe, establishedAs, retryFresh, sameCall, type Call } from '../../driver/rounds.js';
import type { AnswerShape } from '../../driver/answers.js';
import { decodeBlob, flipAt, randomSameShape } from '../../experiments/mutate.js';
import { withoutEcho } from '../../evidence/encodings.js';
import {
  discoverFlows,
  establishFlow,
  noFlowReason,
  prepareOther,
  sharedRandomTry,
  sharedMismatch,
  sharedReplayByB,
  type FoundFlow,
} from '../../experiments/prepare.js';
import { check, outOfBudget, report, startTrial, type Trial } from '../../experiments/trial.js';
import type { Exchange } from '../../model/wire.js';
import type { TryResult } from '../../experiments/shared-tries.js';
import { isRecord } from '../../model/json.js';

const RATIONALE = `
A server that refuses a bad \`requestState\` should refuse every bad one the same way: one frozen
error, the reason only in its own log (seed 002's rule; the SDK's \`-32602 "Invalid or expired
requestState"\`). Answers that differ by reason are an oracle: they tell an attacker how far a guess
got. A state refused only for its principal or its request was authentic — worth keeping, worth
replaying elsewhere — while one refused as malformed or forged was not.

On one working flow of A's the probe presents, each after a fresh round 1: a random blob of the
state's shape; the state with one character changed (unless it is plain JSON with no signature,
whose changed character reaches the business logic instead); A's untouched state on B's own call of the same
tool with the same arguments; and the state of another request of A's (on the same tool with other
arguments, this request's state sent on that one; else another flow's state sent on this one). It
compares the wire answers: which channel answered (a JSON-RPC error, a tool error with \`isError\`,
the round asked again, or an acceptance), the JSON-RPC code, message and \`data\`, the HTTP status,
and the tool error's text. What an answer quotes of its own request is left
out of the comparison: two refusals that differ only in what they repeat say nothing.
**Confirmed** (low severity) when two refusals differ, in any of these or in their channel — a
protocol error for a forged state but a tool error for an authentic one on the wrong request tells
the attacker the state was authentic. The differing answers are listed side by side. **Refuted** when
every refusal reads alike. Acceptances are not compared: the tamper and replay probes speak to them.

Controls: A's untouched retry is accepted; where two refusals differ, a second random blob is
answered exactly as the first (a server whose errors carry a nonce or a clock differs on its own,
and proves nothing). Refusals that all read alike, or fewer than two, need no such control and are
refuted without it. A timeout or 5xx on any presentation makes the probe \`errored\`: an outage is
no answer to compare.

Budget: 20 calls, one flow.`;

/** One presentation's answer as the comparison reads it. */
interface Answer {
  readonly what: string;
  readonly refused: boolean;
  readonly failed: boolean;
  /** Channel, code, message, data, status and text, as answered (redacted in the report). */
  readonly shown: string;
  /** The same with what the request carried left out: what the comparison reads. */
  readonly wire: string;
}

function textOfContent(result: Record<string, unknown>): string {
  const content = Array.isArray(result['content']) ? result['content'] : [];
  return content
    .map((c) => (isRecord(c) && typeof c['text'] === 'string' ? c['text'] : ''))
    .join(' ');
}

/** How an answer reads on the wire, in one line. */
function wireOf(e: Exchange, reading: string): string {
  const status = e.evidence.kind === 'http' ? e.evidence.response?.status : undefined;
  const at = status === undefined ? '' : `HTTP ${status}, `;
  const o = e.outcome;
  let said: string;
  if (o.kind === 'failure') said = `no decision (${o.failure}: ${o.detail.slice(0, 160)})`;
  else if (o.kind === 'error')
    said = `JSON-RPC error ${o.code} "${o.message}"${o.data === undefined ? '' : ` data ${JSON.stringify(o.data)}`}`;
  else if (reading === 'refused' && o.result['isError'] === true)
    said = `tool error "${textOfContent(o.result)}"`;
  else if (reading === 'refused') said = 'asked round 1 again';
  else said = reading === 'accepted' ? 'accepted' : `result (${reading})`;
  return `${at}${said}`.slice(0, 300);
}

export default defineProbe({
  id: 'state/error-oracle',
  title: 'Every refused requestState gets the same answer',
  flaw: 'Refused requestStates get telling answers (an error oracle)',
  severity: 'low',
  rationale: RATIONALE.trim(),
  references: [MRTR_INTEGRITY],
  maxCalls: 20,
  async run(ctx) {
    const found = await discoverFlows(ctx, 'A', {
      limit: 2,
      maxTools: 4,
      tag: 'oracle',
      shared: true,
    });
    const flow = found.flows[0];
    if (flow === undefined) return noFlowReason(ctx, found);
    return report(ctx, [await oracle(ctx, flow, found.flows[1])], errored('no verdict'));
  },
});

async function oracle(ctx: ProbeContext, flow: FoundFlow, second?: FoundFlow): Promise<Trial> {
  const { call, subject } = flow.prepared;
  const trial = startTrial(subject);
  const done = (d: Trial['decision']): Trial => Object.assign(trial, { decision: d });

  const base = await establishFlow(ctx, flow, 'A', subject);
  check(
    trial,
    'untouchedRetryAccepted',
    base.ok,
    "A's untouched retry is accepted",
    establishedAs(base),
  );
  if (!base.ok)
    return done(errored(`the untouched retry of ${subject} did not work (${establishedAs(base)})`));
  const { shape } = base;

  // Another request of A's: the same tool with other arguments, else another flow.
  const prep = await prepareOther(ctx, flow, 'A', 'oracle-other');
  const sameTool = prep.ok && !sameCall(prep.prepared.call, call);
  const other = sameTool ? prep.prepared.call : second?.prepared.call;

  // A state that is plain JSON with no signature has no integrity check to ask about: a changed
  // character reaches the business logic ("no booking matches"), whose answer depends on where the
  // change fell, not on how the server refuses a forgery. The tamper probe speaks to such a state.
  const decoded = decodeBlob(flow.asked.state);
  const unsigned = decoded !== undefined && decoded.segments.length === 1;
  if (unsigned)
    trial.observations.push({
      label: 'state not protected',
      detail: `${subject}'s state decodes to JSON with no signature: the one-character change is left out`,
    });

  const present = presenter(ctx, trial, call, shape);
  // The first random blob is the tamper probe's control too: sent once when the flow is shared.
  const first = await sharedRandomTry(ctx, flow, { owner: 'A', shape });
  const tries = [
    await present('a random blob', { change: randomSameShape }, first?.result),
    ...(unsigned
      ? []
      : [
          await present('the state with one character changed', {
            change: (s) => flipAt(s, 0.5),
          }),
        ]),
    await present(
      "A's untouched state on B's call (same tool, same arguments)",
      { sender: 'B', change: (s) => s },
      // state/replay-principal's first replay too: sent once when the flow is shared.
      await sharedReplayByB(ctx, flow, shape),
    ),
    ...(other === undefined
      ? []
      : [await presentOther(present, { ctx, flow, other, sameTool, shape })]),
  ];
  if (tries.some((t) => t === undefined)) return done(errored('the budget ran out'));
  const answers = tries as Answer[];
  const failed = answers.find((a) => a.failed);
  if (failed !== undefined) return done(errored(`${failed.what}: ${failed.shown}`));
  if (other === undefined)
    trial.observations.push({
      label: 'no second request',
      detail: `${subject} takes nothing to vary and nothing else asks for input: three kinds compared`,
    });
  const judged = refusalsJudged(trial, subject, answers);
  if (judged.verdict !== 'confirmed') {
    // Alike refusals, or fewer than two, are refuted whatever the server does on its own: the
    // noise control guards a difference, and there is none to guard.
    trial.observations.push({
      label: 'noise control not sent',
      detail: 'a second random blob is sent only when two refusals differ: none did',
    });
    return done(judged);
  }
  const random1 = answers[0]!;
  const random2 = await present('a second random blob', { change: randomSameShape });
  if (random2 === undefined) return done(errored('the budget ran out'));
  if (random2.failed) return done(errored(`${random2.what}: ${random2.shown}`));
  const alike = random1.wire === random2.wire;
  check(
    trial,
    'sameFailureAlike',
    alike,
    'two random blobs draw the same answer',
    alike ? 'alike' : `${random1.shown} / ${random2.shown}`,
  );
  if (!alike) return done(errored('the answers vary on their own, so a difference proves nothing'));
  return done(judged);
}

/**
 * The state of another request of A's, presented. On the same tool with other arguments, A's state
 * of this request is sent on the other, as `state/replay-request` sends it (once for both when the
 * flow is shared): the refusal still comes from the same tool. On another tool, that tool's state is
 * sent on this request, so that every refusal compared comes from this one.
 */
async function presentOther(
  present: Present,
  o: {
    readonly ctx: ProbeContext;
    readonly flow: FoundFlow;
    readonly other: Call;
    readonly sameTool: boolean;
    readonly shape: AnswerShape;
  },
): Promise<Answer | undefined> {
  const what = "the state of another request of A's";
  if (!o.sameTool) return present(what, { from: o.other, change: (s) => s });
  const made = await sharedMismatch(o.ctx, o.flow, o.other, o.shape);
  return present(what, { retryCall: o.other, change: (s) => s }, made);
}

/** How A's state is presented once, each from a fresh round 1: its answer, or none past the budget. */
type Present = (
  what: string,
  o: Omit<Parameters<typeof retryFresh>[2], 'owner' | 'shape' | 'label'> & { from?: Call },
  made?: TryResult,
) => Promise<Answer | undefined>;

/** The presentations of `call`'s state as A, in answer shape `shape`. */
function presenter(ctx: ProbeContext, trial: Trial, call: Call, shape: AnswerShape): Present {
  return async (what, o, made) => {
    const r =
      made ??
      (await retryFresh(ctx, o.from ?? call, {
        ...o,
        owner: 'A',
        shape,
        label: what,
        ...(o.from === undefined ? {} : { retryCall: call }),
      }));
    if (outOfBudget(trial, r.round1) || (r.resumed && outOfBudget(trial, r.resumed.exchange)))
      return undefined;
    if (r.resumed === undefined) {
      const shown = `round 1: ${describe(r.round1)}`;
      return { what, refused: false, failed: true, shown, wire: shown };
    }
    const { exchange, reading, sent } = r.resumed;
    const shown = wireOf(exchange, reading);
    return {
      what,
      refused: reading === 'refused',
      failed: reading === 'failure',
      shown,
      wire: withoutEcho(shown, sent),
    };
  };
}

/**
 * The decision on the answers compared (the first random blob, then each kind): refused states
 * answered unlike each other are an oracle; alike, or fewer than two refusals, are none.
 */
function refusalsJudged(trial: Trial, subject: string, answers: readonly Answer[]): ProbeDecision {
  const refusals = answers.filter((a) => a.refused);
  const accepted = answers.filter((a) => !a.refused).map((a) => a.what);
  if (accepted.length > 0)
    trial.observations.push({
      label: 'accepted, not compared',
      detail: `${accepted.join('; ')}: accepted (the tamper and replay probes judge acceptances)`,
    });
  const first = refusals[0];
  const unlike = refusals.find((a) => first !== undefined && a.wire !== first.wire);
  if (first !== undefined && unlike !== undefined) {
    for (const a of refusals)
      trial.observations.push({ label: `answer to ${a.what}`, detail: a.shown });
    return confirmed(
      `${subject} answers refused states differently: ${first.what} → ${first.shown}; ${unlike.what} → ${unlike.shown}`,
    );
  }
  if (refusals.length < 2)
    return refuted(`${subject} refused fewer than two of the presentations: nothing to tell apart`);
  return refuted(`${subject} answered all ${refusals.length} refusals alike (${first?.shown})`);
}
