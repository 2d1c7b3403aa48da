import { MRTR_SINGLE_USE } from '../../model/references.js';
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
  readOutcome,
  retryFresh,
  type Call,
  type Established,
  type Resumed,
} from '../../driver/rounds.js';
import { planMutations, randomSameShape } from '../../experiments/mutate.js';
import { makeCanary } from '../../evidence/markers.js';
import {
  establishFlow,
  preparationAs,
  prepareCall,
  sharedFlow,
  sharedRandomTry,
  type FoundFlow,
  type Prepared,
} from '../../experiments/prepare.js';
import { baselineOf, changedFrom, showDifferences } from '../../experiments/experiment.js';
import type { FlowRecipe } from '../../surface/recipes.js';
import { check, outOfBudget, report, startTrial, type Trial } from '../../experiments/trial.js';

const RATIONALE = `
Binding a \`requestState\` to its principal, its request and a short expiry bounds a replay; it does
not stop one. The specification says so in a warning: a server for which a state must be consumed at
most once MUST enforce that server side. Seed 002's rule is the same: single use, enforced by the
server (a ledger of consumed rounds), because a client that sends the last round twice — a retry
after a dropped answer, or an attacker holding a copy — otherwise gets the action twice: two
reports, two transfers, two redemptions.

The probe completes a flow as A, then sends the final round again, unchanged (the same arguments,
answers and state). **Confirmed** when that second completion is accepted. **Refuted** when it is
refused, or when the server asks round 1's questions again. Only tools that are neither read-only
nor declared idempotent (\`idempotentHint\`) are tried: replaying a read has no effect to prevent, so
a server with only such flows is \`skipped\`, the precondition named; destructive tools only with
\`--include-destructive\`, as everywhere.

Controls: the flow completes once as A (the untouched retry is accepted); a random state of the same
shape draws a decision. If the random state is accepted, the untouched flow runs once more and the
answers are compared: when neither the random state's answer nor that of the two likeliest changes
of the state itself differs from the untouched ones beyond what varies by itself, the server does not consult its state at all, so single use guards nothing
(noted and refuted, never confirmed); when it differs, the state is consulted without a check, and
the replay is judged as usual. A timeout or 5xx on the replay is never a refusal.

Budget: 24 calls, at most 2 flows.`;

/** Neither read-only nor idempotent: a second completion would do the thing twice. */
function acts(flow: FlowRecipe): boolean {
  return !flow.readOnly && flow.tool?.annotations?.['idempotentHint'] !== true;
}

export default defineProbe({
  id: 'state/replay-after-completion',
  title: 'A completed flow cannot be completed again by replaying its final round',
  flaw: 'A completed flow completes again when its final round is replayed',
  severity: 'medium',
  rationale: RATIONALE.trim(),
  references: [MRTR_SINGLE_USE],
  maxCalls: 24,
  async run(ctx) {
    const { flows, failures } = ctx.surface;
    const candidates = flows.filter(acts);
    if (candidates.length === 0) {
      if (flows.length === 0 && failures[0] !== undefined)
        return errored(
          `no flow found, but discovery drew no decision (${failures[0]}), so its absence proves nothing`,
        );
      if (flows.length === 0)
        return skipped(
          'precondition: a tool that answers input_required with a requestState (none found)',
        );
      const kinds = flows.map((f) => `${f.subject} (${f.readOnly ? 'read-only' : 'idempotent'})`);
      return skipped(
        `precondition: a flow on a tool that is neither read-only nor idempotent; replaying ${kinds.join(', ')} has no effect to prevent`,
      );
    }
    const trials: Trial[] = [];
    for (const flow of candidates.slice(0, 2)) {
      const trial = await replayFinal(ctx, flow);
      trials.push(trial);
      if (trial.decision?.verdict === 'confirmed' || trial.outOfBudget) break;
    }
    return report(ctx, trials, errored('no trial reached a verdict'));
  },
});

async function replayFinal(ctx: ProbeContext, flow: FlowRecipe): Promise<Trial> {
  const trial = startTrial(flow.subject);
  const done = (d: Trial['decision']): Trial => Object.assign(trial, { decision: d });
  const first = await completedOnce(ctx, flow);
  if ('why' in first) return done(errored(`could not prepare ${flow.subject}: ${first.why}`));
  const { once, prepared, found } = first;
  const { call, subject } = prepared;
  check(trial, 'completedOnce', once.ok, 'the flow completes once as A', establishedAs(once));
  if (!once.ok) return done(errored(`${subject} did not complete once (${establishedAs(once)})`));

  // The same experiment `state/tamper` and `state/error-oracle` begin with: sent once per scan on a
  // shared flow.
  const shared =
    found === undefined
      ? undefined
      : await sharedRandomTry(ctx, found, { owner: 'A', shape: once.shape });
  const random =
    shared?.result ??
    (await retryFresh(ctx, call, {
      owner: 'A',
      label: 'random blob of the same shape',
      shape: once.shape,
      change: randomSameShape,
    }));
  const randomReading = random.resumed?.reading ?? readOutcome(random.round1.outcome);
  check(
    trial,
    'randomStateDecided',
    random.resumed !== undefined && randomReading !== 'failure',
    'a decision on a random state of the same shape',
    random.resumed ? describe(random.resumed.exchange) : describe(random.round1),
  );
  if (outOfBudget(trial, random.round1)) return done(errored('the budget ran out'));
  if (random.resumed === undefined || randomReading === 'failure')
    return done(errored('the random-state control drew no decision'));

  // The very params of the final round: arguments, answers and the state, unchanged.
  const replay = await ctx.request(call.method, once.final.sent, {
    identity: 'A',
    label: 'the final round again, unchanged',
  });
  if (outOfBudget(trial, replay)) return done(errored('the budget ran out before the replay'));
  const reading = readOutcome(replay.outcome);
  if (reading === 'failure')
    return done(errored(`the replayed final round drew no decision: ${describe(replay)}`));
  if (reading !== 'accepted')
    return done(
      refuted(`${subject} refused its final round sent a second time (${describe(replay)})`),
    );
  if (randomReading === 'accepted') {
    // Accepting a random state means no integrity check; whether single use guards anything
    // depends on whether the state is consulted at all: the experiment asks the answers.
    const unread = await stateUnread(ctx, trial, { call, subject }, once, random.resumed);
    if (unread !== undefined) return done(unread);
  }
  return done(
    confirmed(
      `${subject} completed a second time on its final round sent again unchanged: single use is not enforced`,
    ),
  );
}

/**
 * `flow` run untouched once as A: the scan's shared run when the flow is set up once for every
 * probe (its final round is replayed by this probe alone), else this probe's own.
 */
async function completedOnce(
  ctx: ProbeContext,
  flow: FlowRecipe,
): Promise<
  | { readonly once: Established; readonly prepared: Prepared; readonly found?: FoundFlow }
  | { readonly why: string }
> {
  const found = (await sharedFlow(ctx, flow, 'A'))?.found;
  if (found !== undefined)
    return {
      once: await establishFlow(ctx, found, 'A', found.prepared.subject),
      prepared: found.prepared,
      found,
    };
  const prep = await prepareCall(ctx, flow, 'A', 'completion');
  if (!prep.ok) return { why: preparationAs(prep) };
  const { call, subject } = prep.prepared;
  return { once: await establish(ctx, call, 'A', subject), prepared: prep.prepared };
}

/**
 * After a random state was accepted: whether the state is consulted at all. A decision when it is
 * not (or that cannot be told); undefined when it is (its note made), so single use matters.
 */
async function stateUnread(
  ctx: ProbeContext,
  trial: Trial,
  { call, subject }: { readonly call: Call; readonly subject: string },
  once: Established & { ok: true },
  random: Resumed,
): Promise<ProbeDecision | undefined> {
  const { baseline, second } = await baselineOf(
    ctx,
    call,
    once.final,
    { owner: 'A', shape: once.shape },
    'the untouched flow again (what varies by itself)',
  );
  if (second === undefined)
    return errored(
      `${subject} accepted a random state, and its untouched flow could not be repeated to tell whether the state is consulted`,
    );
  let change = changedFrom(baseline, random);
  // A random blob may miss every field the server reads (it falls back to its defaults): the
  // likeliest changes of the state itself are asked too before the state is called unread.
  for (const m of planMutations(once.asked.state ?? '', makeCanary('state')).slice(0, 2)) {
    if (change.length > 0) break;
    const changed = await retryFresh(ctx, call, {
      owner: 'A',
      label: `changed requestState: ${m.label} (is the state read?)`,
      shape: once.shape,
      change: m.apply,
    });
    if (outOfBudget(trial, changed.round1)) return errored('the budget ran out');
    if (changed.resumed?.reading === 'accepted') change = changedFrom(baseline, changed.resumed);
  }
  if (change.length === 0) {
    trial.observations.push({
      label: 'state not consulted',
      detail: `${subject} completed on a random requestState with the same answer as on its own: there is no issued state for single use to guard`,
    });
    return refuted(`${subject} completes on any state alike, so a replay proves nothing`);
  }
  ctx.note(
    `a random requestState was accepted and changed the answer (${showDifferences(change)}): the state is consulted, unchecked`,
  );
  return undefined;
}
