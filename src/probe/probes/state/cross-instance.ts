import { MRTR_INTEGRITY, STATEFUL_TOOLS } from '../../model/references.js';
import {
  confirmed,
  defineProbe,
  errored,
  refuted,
  skipped,
  type ProbeContext,
} from '../../model/probe.js';
import {
  ask,
  callThrough,
  describe,
  establish,
  establishedAs,
  resume,
} from '../../driver/rounds.js';
import { consumerCall, mint, type HandleRecipe } from '../../surface/recipes.js';
import { makeCanary } from '../../evidence/markers.js';
import {
  discoverFlows,
  prepareCall,
  preparationAs,
  type FoundFlow,
} from '../../experiments/prepare.js';

const RATIONALE = `
Behind a load balancer, a retry can land on any instance: round 1 of a flow on one, round 2 on
another; a handle minted on one, read on the next. Seed 002's rule: the keys are shared by every
instance of a deployment. A server that seals with a per-process key, or keeps its handles in
per-process memory, works in a test on one process and breaks in production on two, one request in
N, in a way no single-endpoint scan can see.

Given a second endpoint of the same deployment (\`--peer <url>\` over HTTP, \`--peer-stdio
"<command>"\` for a second process), the probe, as identity A throughout, asks round 1 of a flow on
the target and sends the retry, its state untouched, to the peer; and mints a handle on the target
and reads it on the peer. **Confirmed** when either hop is refused, naming which (the flow: a
per-process key; the handle: per-process memory or key). **Refuted** when every hop tried is
honoured. Without a peer the probe is \`skipped\`, naming the flags.

Controls: each hop's whole journey works on the target alone and on the peer alone (the flow
completes, the handle is read back), so a refusal means the hop and not a broken flow, a missing
tool or a peer of another deployment. A timeout or 5xx on a hop is never a refusal.

Budget: 24 calls: one flow, one handle recipe.`;

type Hop = { readonly what: string; readonly held?: boolean; readonly error?: string };

export default defineProbe({
  id: 'state/cross-instance',
  title: 'A flow and a handle survive a hop to another instance',
  flaw: 'A flow or a handle breaks on a hop to another instance',
  severity: 'medium',
  rationale: RATIONALE.trim(),
  references: [MRTR_INTEGRITY, STATEFUL_TOOLS],
  maxCalls: 24,
  usesPeer: true,
  runsOnLegacy: true,
  async run(ctx) {
    if (ctx.peer === undefined)
      return skipped(
        'precondition: a second endpoint of the same deployment (--peer <url> or --peer-stdio "<command>")',
      );
    if (ctx.peer.problem !== undefined)
      return errored(`the peer did not answer: ${ctx.peer.problem}`);
    const peer: ProbeContext = {
      ...ctx,
      request: (method, params, options) =>
        ctx.request(method, params, { ...options, via: 'peer' }),
    };
    const hops: Hop[] = [];
    if (ctx.protocol.era === 'modern') {
      const found = await discoverFlows(ctx, 'A', { limit: 1, maxTools: 4, tag: 'hop' });
      if (found.flows[0] !== undefined) hops.push(await flowHop(ctx, peer, found.flows[0]));
    }
    const recipe = [...ctx.surface.handles].sort(
      (a, b) => Number(b.checked) - Number(a.checked),
    )[0];
    if (recipe !== undefined) hops.push(await handleHop(ctx, peer, recipe));
    if (hops.length === 0)
      return skipped('precondition: a flow or a handle to carry across (discovery found neither)');
    const broken = hops.filter((h) => h.held === false);
    if (broken.length > 0)
      return confirmed(
        `refused after a hop to the peer: ${broken.map((h) => h.what).join('; ')} (a per-process key or per-process memory)`,
      );
    const failed = hops.find((h) => h.error !== undefined);
    if (failed !== undefined) return errored(failed.error ?? '');
    return refuted(`honoured after a hop to the peer: ${hops.map((h) => h.what).join('; ')}`);
  },
});

async function flowHop(ctx: ProbeContext, peer: ProbeContext, flow: FoundFlow): Promise<Hop> {
  const { call, subject } = flow.prepared;
  const what = `the flow ${subject} (round 1 on the target, the retry on the peer)`;
  const here = await establish(ctx, call, 'A', subject, flow.asked);
  ctx.control('flowWorksOnTarget', {
    held: here.ok,
    expected: 'the flow completes on the target',
    observed: establishedAs(here),
  });
  const prep = await prepareCall(peer, flow.prepared.flow, 'A', 'hop-peer');
  const there = prep.ok ? await establish(peer, prep.prepared.call, 'A', subject) : undefined;
  ctx.control('flowWorksOnPeer', {
    held: there?.ok === true,
    expected: 'the flow completes on the peer alone',
    observed: there === undefined ? (prep.ok ? '' : preparationAs(prep)) : establishedAs(there),
  });
  if (!here.ok || there?.ok !== true) return { what, error: `${subject} does not work on both` };
  const first = await ask(ctx, call, 'A', `${subject}: round 1 on the target`);
  if (first.asked?.state === undefined)
    return { what, error: `a fresh round 1 did not ask again: ${describe(first.exchange)}` };
  const hop = await resume(peer, first.asked, {
    identity: 'A',
    label: `${subject}: the retry on the peer`,
    state: first.asked.state,
    shape: here.shape,
  });
  if (hop.reading === 'failure')
    return { what, error: `the retry on the peer drew no decision: ${describe(hop.exchange)}` };
  return { what: `${what}: ${describe(hop.exchange)}`, held: hop.reading === 'accepted' };
}

async function handleHop(
  ctx: ProbeContext,
  peer: ProbeContext,
  recipe: HandleRecipe,
): Promise<Hop> {
  const what = `a handle of ${recipe.minter.name} (minted on the target, read on the peer)`;
  const read = (on: ProbeContext, handle: string, label: string) =>
    callThrough(on, consumerCall(recipe.consumer, handle, makeCanary('hop-read')), 'A', label);
  const minted = await mint(ctx, recipe, 'A', 'A mints on the target');
  const mintedThere = await mint(peer, recipe, 'A', 'A mints on the peer');
  const here =
    minted.handle === undefined
      ? undefined
      : await read(ctx, minted.handle, 'A reads it on the target');
  const there =
    mintedThere.handle === undefined
      ? undefined
      : await read(peer, mintedThere.handle, 'A reads its peer handle on the peer');
  const live =
    here?.answered === true &&
    here.reading !== 'refused' &&
    there?.answered === true &&
    there.reading !== 'refused';
  ctx.control('handleWorksOnEach', {
    held: live,
    expected: 'a handle is minted and read back on the target and on the peer alone',
    observed: `${here === undefined ? 'nothing minted' : describe(here.exchange)} / ${there === undefined ? 'nothing minted' : describe(there.exchange)}`,
  });
  if (!live || minted.handle === undefined)
    return { what, error: 'the handle recipe does not work on both' };
  const hop = await read(peer, minted.handle, "A reads the target's handle on the peer");
  if (!hop.answered && hop.reading === 'failure')
    return { what, error: `the read on the peer drew no decision: ${describe(hop.exchange)}` };
  return {
    what: `${what}: ${describe(hop.exchange)}`,
    held: hop.answered && hop.reading !== 'refused',
  };
}
