import { MRTR_INTEGRITY } from '../../model/references.js';
import {
  confirmed,
  defineProbe,
  errored,
  refuted,
  type ProbeContext,
  type ProbeDecision,
} from '../../model/probe.js';
import type { AnswerShape } from '../../driver/answers.js';
import { describe, establishedAs, readOutcome, viewOf, type Resumed } from '../../driver/rounds.js';
import { differences } from '../../evidence/positions.js';
import { makeCanary, shows } from '../../evidence/markers.js';
import { planMutations, randomSameShape, type Mutation } from '../../experiments/mutate.js';
import type { baselineOf } from '../../experiments/experiment.js';
import {
  changedFrom,
  reflectionControl,
  showDifferences,
  type Reflection,
} from '../../experiments/experiment.js';
import {
  discoverFlows,
  establishFlow,
  noFlowReason,
  noiseOfFlow,
  sharedRandomTry,
  type FoundFlow,
} from '../../experiments/prepare.js';
import { check, outOfBudget, report, startTrial, type Trial } from '../../experiments/trial.js';
import { sharedTries, type SharedTry, type TryResult } from '../../experiments/shared-tries.js';

/** One planned change: the round whose state it changes, and the mutation. */
interface Planned {
  readonly round: number;
  readonly m: Mutation;
}

const RATIONALE = `
A \`requestState\` round-trips through the client, so the specification calls it attacker-controlled
input: a server whose state influences authorization, resource access or business logic MUST protect
its integrity and MUST reject a state that fails verification. A server that hands out
\`JSON.stringify(state)\` and acts on what comes back lets the client rewrite its own authorization
between the question and the answer.

The probe runs an experiment on a flow discovery found (a non-destructive tool, a prompt or a
resource that answers \`input_required\` with a \`requestState\`), every try from a fresh round 1 so
that a single-use state cannot pass for a refused one:

1. The untouched flow twice: what differs between the two answers (a clock, a fresh id) varies by
   itself and is ignored from then on.
2. A random blob of the same shape: refused, or accepted (noted, with whether the answer changed).
3. Every field of a readable state in turn (raw, base64 or base64url JSON, \`body.signature\`, JWS, JSON
   inside a string; names only decide the order, principal first and a token's bookkeeping, its
   times, issuer, audience and id, last), and the state of every round, not only the first: a string
   becomes a canary, a number ×1000, a boolean flips, a later round's value goes into an earlier
   round's state (a step that skips an approval); a JWS is also sent with \`alg: none\` and no
   signature; an unkeyed digest of the body, or of a field beside the changed one, is recomputed. An
   opaque blob gets characters changed at spread offsets, each checked to change the decoded bytes.
4. When a change is accepted and the answer differs beyond the noise, the control: the same change
   with a second canary in a field the server has never seen. A server that shows back the whole
   state shows the control too, and proves nothing; one that does not acted on the changed value.

**Confirmed** when a changed state is accepted, the answer changes beyond the noise, and the control
canary does not come back (or no field can be planted: an opaque blob). The report shows the
difference. **Refuted** when every change is refused, or when the accepted changes left the answers
as they were (the state is not consulted), or changed them only where the server shows back what it
was sent. A timeout or 5xx on any try, or an untouched flow that cannot be repeated to learn its
noise, is \`errored\`, never a refusal.

A run of 8 changes refused in a row exactly as the random blob was (the state is checked as a whole)
ends the plan early; an accepted change, or a refusal of another kind, ends the run. Budget: 40
calls, at most 2 flows.`;

const MAX_CALLS = 40;
/**
 * Changes refused in a row exactly as the random blob was, after which the plan stops. An accepted
 * change ends the run: a state whose changes pass at all is not checked as a whole.
 */
const WHOLE_CHECK_RUN = 8;

export default defineProbe({
  id: 'state/tamper',
  title: 'A changed requestState is refused',
  flaw: 'A changed requestState is honoured',
  severity: 'high',
  rationale: RATIONALE.trim(),
  references: [MRTR_INTEGRITY],
  maxCalls: MAX_CALLS,
  async run(ctx) {
    const found = await discoverFlows(ctx, 'A', {
      limit: 2,
      maxTools: 4,
      tag: 'tamper',
      shared: true,
    });
    if (found.flows.length === 0) {
      return noFlowReason(ctx, found);
    }
    const trials: Trial[] = [];
    for (const flow of found.flows) {
      const trial = await tamper(ctx, flow);
      trials.push(trial);
      if (trial.decision?.verdict === 'confirmed' || trial.outOfBudget) break;
    }
    return report(ctx, trials, errored('no trial reached a verdict'));
  },
});

async function tamper(ctx: ProbeContext, flow: FoundFlow): Promise<Trial> {
  const { call, subject } = flow.prepared;
  const trial = startTrial(subject);
  const done = (d: Trial['decision']): Trial => Object.assign(trial, { decision: d });

  const base = await establishFlow(ctx, flow, 'A', subject);
  check(
    trial,
    'untouchedRetryAccepted',
    base.ok,
    'the untouched retry is accepted (the flow works)',
    establishedAs(base),
  );
  if (!base.ok)
    return done(errored(`the untouched retry of ${subject} did not work (${establishedAs(base)})`));
  const { shape } = base;
  const send = { owner: 'A' as const, shape };
  const noise = lazyNoise(ctx, flow, base.final, send);

  // The tries share a round 1 while they are refused; the control at the end says whether that
  // held (see shared-tries.ts), and the tries it does not back are sent again from a fresh one.
  const shared = sharedTries(ctx, call, send);
  // The random blob is the error-oracle's first presentation too: sent once when the flow is shared.
  const first = await sharedRandomTry(ctx, flow, send);
  const random =
    first !== undefined
      ? shared.adopt(first)
      : await shared.attempt({ label: 'random blob of the same shape', change: randomSameShape });
  const randomReading = random.resumed?.reading ?? readOutcome(random.round1.outcome);
  check(
    trial,
    'randomBlobDecided',
    randomReading !== 'failure' && random.resumed !== undefined,
    'a decision on a random blob of the same shape (refused, or else noted)',
    random.resumed ? describe(random.resumed.exchange) : describe(random.round1),
  );
  if (random.resumed === undefined || randomReading === 'failure')
    return done(errored('the random-blob control drew no decision'));
  const randomChange =
    randomReading === 'accepted' ? changedFrom((await noise()).baseline, random.resumed) : [];
  if (randomReading === 'accepted')
    ctx.note(
      randomChange.length > 0
        ? `a random requestState was accepted and changed the answer: ${showDifferences(randomChange)}`
        : 'a random requestState was accepted and the answer did not change beyond its noise',
    );

  const canary = makeCanary('state');
  const planned = plan(base.final, canary);
  const tally: Tally = { noEffect: [], reflected: [], tries: 0, refusedAsRandom: 0 };
  const randomView = randomReading === 'refused' ? refusalOf(random.resumed) : undefined;
  const env: ConsiderEnv = { ctx, trial, call, send, noise, randomView, subject };
  const labelOf = ({ round, m }: Planned): string =>
    `changed requestState${round > 1 ? ` of round ${round}` : ''}: ${m.label}`;
  const planOf = new Map<SharedTry, Planned>();
  let stopped = false;
  for (const entry of planned) {
    if (tally.refusedAsRandom >= WHOLE_CHECK_RUN) {
      ctx.note(
        `${WHOLE_CHECK_RUN} changes in a row were refused exactly as the random blob was; the remaining ${planned.length - tally.tries} were not sent`,
      );
      break;
    }
    const t: SharedTry = { label: labelOf(entry), change: entry.m.apply, round: entry.round };
    planOf.set(t, entry);
    const next = await considerTry(env, tally, entry, await shared.attempt(t), false);
    if (next === 'stop') {
      stopped = true;
      break;
    }
    if (next !== 'next') return done(next);
  }
  // The random blob is the first try on its round 1, never doubtful: only planned changes come back.
  for (const redo of stopped ? [] : await shared.settle()) {
    const entry = planOf.get(redo.t);
    if (entry === undefined) continue;
    const next = await considerTry(env, tally, entry, redo.result, true);
    if (next === 'stop') break;
    if (next !== 'next') return done(next);
  }
  const randomUnread = randomReading === 'accepted' && randomChange.length === 0;
  return done(tallied(trial, subject, tally, randomUnread));
}

/** What the tries of one flow have shown so far. */
interface Tally {
  readonly noEffect: string[];
  readonly reflected: string[];
  reflection?: { reflection: Reflection; detail: string };
  noDecision?: string;
  tries: number;
  /** Refusals in a row exactly as the random blob's. */
  refusedAsRandom: number;
}

/** What {@link considerTry} reads of the trial it serves. */
interface ConsiderEnv {
  readonly ctx: ProbeContext;
  readonly trial: Trial;
  readonly call: FoundFlow['prepared']['call'];
  readonly send: { readonly owner: 'A'; readonly shape: AnswerShape };
  readonly noise: () => ReturnType<typeof baselineOf>;
  readonly randomView: ReturnType<typeof refusalOf> | undefined;
  readonly subject: string;
}

/** What one try's answer means: go on, stop trying, or the trial's decision. */
async function considerTry(
  env: ConsiderEnv,
  tally: Tally,
  { round, m }: Planned,
  r: TryResult,
  again: boolean,
): Promise<'next' | 'stop' | ProbeDecision> {
  const { ctx, trial, call, send, noise, randomView, subject } = env;
  if (outOfBudget(trial, r.round1) || (r.resumed && outOfBudget(trial, r.resumed.exchange)))
    return 'stop';
  if (r.resumed === undefined) {
    if (readOutcome(r.round1.outcome) === 'failure')
      tally.noDecision ??= `round 1 before "${m.label}": ${describe(r.round1)}`;
    return 'next';
  }
  if (!again) tally.tries++;
  const { reading, exchange } = r.resumed;
  if (reading === 'failure') tally.noDecision ??= `"${m.label}": ${describe(exchange)}`;
  // A run counts refusals in a row: a refusal of another kind, or an accepted change, ends it.
  if (!again && reading === 'accepted') tally.refusedAsRandom = 0;
  if (reading === 'refused' && randomView !== undefined && !again)
    tally.refusedAsRandom =
      differences(randomView, refusalOf(r.resumed)).length === 0 ? tally.refusedAsRandom + 1 : 0;
  if (reading !== 'accepted') return 'next';
  const { baseline, second } = await noise();
  const change = changedFrom(baseline, r.resumed);
  const planted =
    m.marker !== undefined && r.resumed.rounds.some((e) => shows(e.outcome, m.marker ?? ''));
  if (change.length === 0 && !planted) {
    tally.noEffect.push(m.label);
    return 'next';
  }
  if (second === undefined) {
    tally.noDecision ??= `the untouched flow could not be repeated to learn what varies by itself, so the change after "${m.label}" proves nothing`;
    return 'next';
  }
  tally.reflection ??= await reflectionControl(
    ctx,
    call,
    { ...send, round, label: `control: "${m.label}" with a canary in a field never seen` },
    m.withControl,
  );
  if (tally.reflection.reflection === 'reflected') {
    // It shows back whatever it gets: every later change would be read the same way.
    tally.reflected.push(m.label);
    return 'stop';
  }
  if (tally.reflection.reflection === 'failure') {
    tally.noDecision ??= `the reflection control drew no decision (${tally.reflection.detail})`;
    return 'next';
  }
  check(
    trial,
    'controlNotReflected',
    true,
    'a canary in a field the server never saw does not come back (it acts on the field, it does not show back its input)',
    `${tally.reflection.reflection}: ${tally.reflection.detail}`,
  );
  ctx.note(`answer of the untouched flow against the changed one: ${showDifferences(change)}`);
  return confirmed(
    `${subject} acted on a changed requestState (${m.label}${round > 1 ? `, round ${round}'s state` : ''}): its answer changed (${showDifferences(change, 2)}), while a control canary in a field it never saw did not come back`,
  );
}

/**
 * The decision once every try is read and none confirmed: no decision, nothing sent, only shown
 * back, all refused, or accepted without effect (`randomUnread`: a random state was accepted with
 * no change either, so the state is not consulted).
 */
function tallied(
  trial: Trial,
  subject: string,
  tally: Tally,
  randomUnread: boolean,
): ProbeDecision {
  if (tally.noDecision !== undefined)
    return errored(`a changed requestState drew no decision (${tally.noDecision})`);
  if (tally.tries === 0) return errored(`no change of ${subject}'s requestState could be sent`);
  if (tally.reflected.length > 0) {
    trial.observations.push({
      label: 'shows back its state',
      detail: `${subject}'s answer changed with its state (${tally.reflected[0]}), but a control canary in a field it never saw came back too: it repeats what it was sent`,
    });
    return refuted(`${subject}'s answers changed with its state only by showing it back`);
  }
  if (tally.noEffect.length === 0)
    return refuted(`${subject} refused every changed requestState (${tally.tries} tries)`);
  if (randomUnread)
    trial.observations.push({
      label: 'state not consulted',
      detail: `${subject} accepted a random requestState and ${tally.noEffect.length} changed ones, and no answer differed from the untouched one beyond its noise`,
    });
  return refuted(
    `${subject} accepted ${tally.noEffect.length} changed requestState(s), none of which changed its answer beyond its noise`,
  );
}

/**
 * The untouched flow again, to learn what varies by itself: sent only once an answer must be
 * compared (a server that refuses every change needs no noise model), and once.
 */
function lazyNoise(
  ctx: ProbeContext,
  flow: FoundFlow,
  final: Resumed,
  send: ConsiderEnv['send'],
): () => ReturnType<typeof baselineOf> {
  let measured: ReturnType<typeof baselineOf> | undefined;
  return () =>
    (measured ??= noiseOfFlow(
      ctx,
      flow,
      final,
      send,
      'the untouched flow again (what varies by itself)',
    ));
}

/** The refusal a flow ended with, as leaves (its sent states masked). */
function refusalOf(resumed: Resumed): ReturnType<typeof viewOf> {
  return viewOf({ ...resumed, rounds: [resumed.exchange] });
}

/**
 * Every round's state mutated, the rounds interleaved (each round's most telling change early), so
 * a flow whose later round trusts plain fields is reached within the budget.
 */
function plan(untouched: Resumed, canary: string): Planned[] {
  const states = untouched.sentStates;
  const lists = states.map((state, i) =>
    planMutations(state, canary, { later: states.slice(i + 1) }).map((m) => ({ round: i + 1, m })),
  );
  const out: Planned[] = [];
  for (let k = 0; lists.some((l) => k < l.length); k++)
    for (const l of lists) if (k < l.length) out.push(l[k] as Planned);
  return out;
}
