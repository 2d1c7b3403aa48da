import { MRTR_EXPIRY } from '../../model/references.js';
import {
  confirmed,
  defineProbe,
  errored,
  refuted,
  skipped,
  type ProbeContext,
} from '../../model/probe.js';
import { ask, describe, establish, establishedAs, resume } from '../../driver/rounds.js';
import { decodeBlob } from '../../experiments/mutate.js';
import { discoverFlows, noFlowReason } from '../../experiments/prepare.js';

const RATIONALE = `
A \`requestState\` is a bearer credential for the rest of a flow: whoever holds a copy can finish it.
The specification says a server SHOULD put a short expiry inside the integrity-protected state and
refuse it after it lapses. Seed 000 asks that a state presented after ten minutes be refused the
same way as any other bad state; seed 002 sets 600 s per round. A state that never expires turns a
leaked log line or a stale tab into a key that works forever.

\`--expiry-wait <duration>\` states the longest lifetime the server should honour (at least what the
server promises; the seeds' rule is 600 s). The probe asks round 1 of a flow as A, waits that long,
then sends the retry with the state untouched. **Confirmed** when it is still honoured, with the
wait and both answers as evidence. **Refuted** when it is refused. Without the flag the probe is
\`skipped\`, naming it: the scan cannot guess a lifetime. The wait extends the scan's deadline by the
same amount. Where the state decodes and carries its own expiry (\`exp\`, \`expiresAt\`, …), that is
reported as an observation, and so is a server that honours the state past it.

Controls: the flow works (A's untouched retry is accepted before the wait), and it still works after
it (a fresh flow is accepted), so a refusal means the old state expired, not that the server went
away. A timeout or 5xx after the wait is never a refusal.

Budget: 12 calls, one flow, one wait.`;

const EXPIRY_KEYS = ['exp', 'expiresAt', 'expires_at', 'expires', 'expiry', 'expiresAtMs'];

/** The expiry a decodable state carries, as epoch ms, if any (seconds or ms, by magnitude). */
function carriedExpiry(state: string): number | undefined {
  const decoded = decodeBlob(state);
  if (decoded === undefined) return undefined;
  for (const key of EXPIRY_KEYS) {
    const v = decoded.value[key];
    const n = typeof v === 'number' ? v : typeof v === 'string' ? Date.parse(v) : NaN;
    if (Number.isFinite(n) && n > 0) return n < 1e11 ? n * 1000 : n;
  }
  return undefined;
}

const sleep = (ms: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, ms).unref());

export default defineProbe({
  id: 'state/expiry',
  title: 'A requestState is refused after its lifetime',
  flaw: 'A requestState is honoured after its lifetime',
  severity: 'medium',
  rationale: RATIONALE.trim(),
  references: [MRTR_EXPIRY],
  maxCalls: 12,
  touches: ['waits'],
  waitMs: (settings) => settings.expiryWaitMs ?? 0,
  async run(ctx) {
    const wait = ctx.settings.expiryWaitMs;
    if (wait === undefined)
      return skipped(
        'precondition: --expiry-wait <duration>, the longest lifetime the server should honour (the seeds: 600s)',
      );
    const found = await discoverFlows(ctx, 'A', { limit: 1, maxTools: 4, tag: 'expiry' });
    const flow = found.flows[0];
    if (flow === undefined) return noFlowReason(ctx, found);
    const { call, subject } = flow.prepared;
    const before = await establish(ctx, call, 'A', subject, flow.asked);
    ctx.control('untouchedRetryAccepted', {
      held: before.ok,
      expected: "A's untouched retry is accepted before the wait",
      observed: establishedAs(before),
    });
    if (!before.ok)
      return errored(`the untouched retry of ${subject} did not work (${establishedAs(before)})`);

    const first = await ask(ctx, call, 'A', `${subject}: round 1, then the wait`);
    if (first.asked?.state === undefined)
      return errored(`a fresh round 1 did not ask again: ${describe(first.exchange)}`);
    const issuedAt = Date.now();
    const carried = carriedExpiry(first.asked.state);
    if (carried !== undefined)
      ctx.observe(
        'the state carries its expiry',
        `it decodes to an expiry ${Math.round((carried - issuedAt) / 1000)} s after it was issued (${new Date(carried).toISOString()})`,
      );
    ctx.note(`waiting ${wait} ms (--expiry-wait) before sending the state back`);
    await sleep(wait);
    const late = await resume(ctx, first.asked, {
      identity: 'A',
      label: `the untouched state after ${wait} ms`,
      state: first.asked.state,
      shape: before.shape,
    });
    return afterWait(ctx, { subject, call, shape: before.shape, wait, carried, late });
  },
});

async function afterWait(
  ctx: ProbeContext,
  o: {
    subject: string;
    call: Parameters<typeof establish>[1];
    shape: Parameters<typeof resume>[2]['shape'];
    wait: number;
    carried: number | undefined;
    late: Awaited<ReturnType<typeof resume>>;
  },
) {
  const still = await establish(ctx, o.call, 'A', `${o.subject} after the wait`);
  ctx.control('flowStillWorks', {
    held: still.ok,
    expected: 'a fresh flow is accepted after the wait (the server is still there)',
    observed: establishedAs(still),
  });
  const seconds = `${(o.wait / 1000).toFixed(o.wait % 1000 === 0 ? 0 : 1)} s`;
  if (o.late.reading === 'failure')
    return errored(
      `the state sent after ${seconds} drew no decision: ${describe(o.late.exchange)}`,
    );
  if (o.late.reading !== 'accepted')
    return refuted(
      `${o.subject} refused its state after ${seconds} (${describe(o.late.exchange)})`,
    );
  if (o.carried !== undefined && o.carried < Date.now())
    ctx.observe(
      'honoured past its own expiry',
      `the state said it expired at ${new Date(o.carried).toISOString()}, and was honoured after that`,
    );
  return confirmed(
    `${o.subject} honoured an untouched requestState ${seconds} after it was issued (--expiry-wait)`,
  );
}
