import { MRTR_INTEGRITY } from '../references.js';
import { confirmed, defineProbe, errored, refuted, type ProbeContext } from '../define.js';
import {
  describe,
  establish,
  establishedAs,
  readOutcome,
  resultOf,
  retryFresh,
} from '../trials/rounds.js';
import { makeCanary } from '../evidence/markers.js';
import { markerCounts } from '../evidence/echo.js';
import { planMutations, randomSameShape } from '../trials/mutate.js';
import { discoverFlows, noFlowReason, type FoundFlow } from '../trials/prepare.js';
import { check, outOfBudget, report, startTrial, type Trial } from '../trials/trial.js';

const RATIONALE = `
A \`requestState\` round-trips through the client, so the specification calls it attacker-controlled
input: a server whose state influences authorization MUST protect its integrity and MUST reject a
state that fails verification. A server that base64s its old session object and acts on what comes
back lets the client rewrite its own authorization between the question and the answer.

The probe takes a flow discovery found (a non-destructive tool, a prompt or a resource that answers
\`input_required\` with a \`requestState\`). It decodes the blob where it can (raw JSON, base64url
or base64 JSON, \`body.signature\`, JWS) and changes one security-relevant field per try —
principal to a canary, role to admin, an approval flipped, amounts ×1000, expiry +10^7, a target id
to a canary — leaving any signature exactly as issued; an opaque blob gets characters changed at
several offsets, each checked to change the decoded bytes (a low-bit flip of the last base64
character changes nothing and would prove nothing). Every try
starts from a fresh round 1, so a single-use state cannot pass for a rejected one.

Controls: the untouched retry is accepted (answered in the spec's shape, then the bare shape,
before the flow is called broken); a random blob of the same shape and length draws a decision.
**Confirmed** when a changed state is accepted and the planted value shows in the answer, or when it
is accepted at all while the random blob was refused. If the random blob is accepted too, the server
does not consult the state: that is an observation, and only the planted value can confirm.
**Refuted** when every change is refused. A timeout or 5xx on any try is never a refusal.

Budget: 32 calls, at most 6 changes per tool, at most 2 tools.`;

const MAX_CALLS = 32;
const MAX_CHANGES = 6;

export default defineProbe({
  id: 'state/tamper',
  title: 'A changed requestState is refused',
  severity: 'high',
  rationale: RATIONALE.trim(),
  references: [MRTR_INTEGRITY],
  maxCalls: MAX_CALLS,
  async run(ctx) {
    const found = await discoverFlows(ctx, 'A', { limit: 2, maxTools: 4, tag: 'tamper' });
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

  const base = await establish(ctx, call, 'A', subject, flow.asked);
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

  const random = await retryFresh(ctx, call, {
    owner: 'A',
    label: 'random blob of the same shape',
    shape,
    change: randomSameShape,
  });
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
  const randomRefused = randomReading === 'refused';
  if (!randomRefused) {
    trial.observations.push({
      label: 'state not consulted',
      detail: `${subject} accepted a random requestState, so acceptance proves nothing; only a planted value can confirm`,
    });
  }

  const canary = makeCanary('state');
  const mutations = planMutations(base.asked.state ?? '', canary);
  let accepted: string | undefined;
  let noDecision: string | undefined;
  let tries = 0;
  for (const m of mutations.slice(0, MAX_CHANGES)) {
    const r = await retryFresh(ctx, call, {
      owner: 'A',
      label: `changed requestState: ${m.label}`,
      shape,
      change: m.apply,
    });
    if (outOfBudget(trial, r.round1) || (r.resumed && outOfBudget(trial, r.resumed.exchange)))
      break;
    if (r.resumed === undefined) {
      if (readOutcome(r.round1.outcome) === 'failure')
        noDecision ??= `round 1 before "${m.label}": ${describe(r.round1)}`;
      continue;
    }
    tries++;
    const { reading, exchange, sent } = r.resumed;
    if (reading === 'failure') noDecision ??= `"${m.label}": ${describe(exchange)}`;
    if (reading !== 'accepted') continue;
    if (
      m.marker !== undefined &&
      markerCounts(m.marker, resultOf(exchange), sent, { rawOnlyKeys: ['requestState'] })
    ) {
      return done(
        confirmed(
          `${subject} acted on a changed requestState (${m.label}): the planted value came back in its answer`,
        ),
      );
    }
    accepted ??= m.label;
  }
  if (accepted !== undefined && randomRefused) {
    return done(
      confirmed(
        `${subject} accepted a changed requestState (${accepted}) while it refused a random blob`,
      ),
    );
  }
  if (noDecision !== undefined)
    return done(errored(`a changed requestState drew no decision (${noDecision})`));
  if (accepted !== undefined)
    return done(
      refuted(
        `${subject} accepted a changed requestState, but it accepts any state and nothing planted came back`,
      ),
    );
  if (tries === 0) return done(errored(`no change of ${subject}'s requestState could be sent`));
  return done(refuted(`${subject} refused every changed requestState (${tries} tries)`));
}
