/**
 * Getting a discovered flow ready to run as one identity: mint the handle it takes (a fresh canary
 * planted in the minting call's free-form strings; the handle is the value at the place the survey
 * saw the mint differ, and a consumer of several handles gets the identity's own value in each
 * other slot), build the request around a fresh canary, and ask round 1.
 */
import { createHash } from 'node:crypto';
import type { ProbeContext } from '../model/probe.js';
import { mint, othersOf, recipeName, takeHanded, type FlowRecipe } from '../surface/recipes.js';
import {
  ask,
  describe,
  establish,
  readOutcome,
  type Asked,
  type Call,
  retryFresh,
  type Established,
  type FreshRetry,
  type Reading,
  type Resumed,
} from '../driver/rounds.js';
import type { AnswerShape } from '../driver/answers.js';
import { baselineOf, type Send } from './experiment.js';
import { randomSameShape } from './mutate.js';
import {
  firstTry,
  type FirstTry,
  type SharedTry,
  type SharedTriesOptions,
} from './shared-tries.js';
import { byDefault } from '../plan/tool-risk.js';
import { makeCanary } from '../evidence/markers.js';
import type { Exchange } from '../model/wire.js';
import type { IdentityName } from '../model/target.js';

/** A request ready to send: the canary planted in it, and the handles minted for it. */
export interface Prepared {
  readonly flow: FlowRecipe;
  readonly subject: string;
  readonly call: Call;
  readonly canary: string;
  readonly handles: readonly string[];
  /** The minting answers, as the identity saw them. */
  readonly minted: readonly unknown[];
}

/** A prepared call, or why there is none (`failure` when a minting call drew no decision). */
export type Preparation =
  | { readonly ok: true; readonly prepared: Prepared }
  | { readonly ok: false; readonly why: string; readonly failure?: Exchange };

/**
 * How a preparation that failed reads in a reason: why, and what the request that drew no decision
 * drew (a deadline, an outage, a server that shed it), so the reason says what to do.
 */
export function preparationAs(p: Preparation & { readonly ok: false }): string {
  return p.failure === undefined ? p.why : `${p.why}: ${describe(p.failure)}`;
}

/** Mint what `flow` takes as `identity` and build its request around a fresh canary. */
export async function prepareCall(
  ctx: ProbeContext,
  flow: FlowRecipe,
  identity: IdentityName,
  tag: string,
): Promise<Preparation> {
  const canary = makeCanary(tag);
  if (flow.needs === undefined) {
    const call = flow.build(canary);
    return {
      ok: true,
      prepared: { flow, subject: flow.subject, call, canary, handles: [], minted: [] },
    };
  }
  const m = await mint(
    ctx,
    flow.needs,
    identity,
    `${tag}: ${recipeName(flow.needs)} as ${identity}`,
    canary,
  );
  if (readOutcome(m.driven.exchange.outcome) === 'failure' && !m.driven.answered)
    return {
      ok: false,
      why: `${flow.needs.minter.name} did not answer`,
      failure: m.driven.exchange,
    };
  if (m.handle === undefined)
    return {
      ok: false,
      why: `${flow.needs.minter.name} minted nothing for ${flow.subject} (${describe(m.driven.exchange)})`,
    };
  // A consumer of several handles: the identity's own values fill its other slots.
  const slots = othersOf(flow.needs);
  if (slots.length > 0 && m.co === undefined) {
    const failedMint = m.also?.find((d) => readOutcome(d.exchange.outcome) === 'failure');
    return {
      ok: false,
      why: `${identity} could not mint a value for every slot of ${flow.subject}`,
      ...(failedMint === undefined ? {} : { failure: failedMint.exchange }),
    };
  }
  const co = m.co ?? [];
  const call = flow.build(canary, m.handle, co);
  return {
    ok: true,
    prepared: {
      flow,
      subject: flow.subject,
      call,
      canary,
      handles: [m.handle, ...co],
      minted: [...m.driven.answers, ...(m.also ?? []).flatMap((d) => d.answers)],
    },
  };
}

/** A request that asked for input with a `requestState`, with the call that made it ask. */
export interface FoundFlow {
  readonly prepared: Prepared;
  readonly asked: Asked & { readonly state: string };
  /**
   * Set when the scan set the flow up once for every probe: `asked` is then the shared round 1,
   * spent by the shared untouched run ({@link establishFlow}); a probe asks its own.
   */
  readonly shared?: SharedRound;
}

/** A flow's round 1 as an identity, shared by the probes of a scan. */
interface SharedRound {
  readonly key: string;
  readonly identity: IdentityName;
  /** Round 1's state not yet sent: the first untouched run takes it, any later one asks afresh. */
  unspent: boolean;
}

/**
 * The flow's untouched run: once per scan for every probe when the flow is shared (round 1 spent
 * by it, so no probe may send `asked` itself), else the probe's own, on its own round 1.
 */
export async function establishFlow(
  ctx: ProbeContext,
  flow: FoundFlow,
  identity: IdentityName,
  label: string,
): Promise<Established> {
  const { call } = flow.prepared;
  const shared = flow.shared;
  if (shared === undefined || ctx.setup === undefined || shared.identity !== identity)
    return establish(ctx, call, identity, label, flow.asked);
  const make = (c: ProbeContext): Promise<Established> => {
    const asked = shared.unspent ? flow.asked : undefined;
    shared.unspent = false;
    return establish(c, call, identity, flow.prepared.subject, asked);
  };
  const drewDecision = (e: Established): boolean => e.ok || e.reading !== 'failure';
  return ctx.setup.once(`${shared.key}, run untouched`, make, drewDecision);
}

/**
 * Another request of `identity`'s on the same flow: its recipe prepared again, around a fresh
 * canary and the handles minted for it. Once per scan for every probe that asks when the flow is
 * shared (it only reads or creates, so no probe's use of it changes another's), else the probe's own.
 */
export async function prepareOther(
  ctx: ProbeContext,
  flow: FoundFlow,
  identity: IdentityName,
  tag: string,
): Promise<Preparation> {
  const shared = flow.shared;
  const recipe = flow.prepared.flow;
  if (shared === undefined || ctx.setup === undefined || shared.identity !== identity)
    return prepareCall(ctx, recipe, identity, tag);
  const drewDecision = (p: Preparation): boolean => p.ok || p.failure === undefined;
  return ctx.setup.once(
    `${shared.key}, another request`,
    (c) => prepareCall(c, recipe, identity, 'shared other'),
    drewDecision,
  );
}

/**
 * What varies by itself in the flow's untouched run (`final`, what {@link establishFlow} gave):
 * the untouched flow sent once more from a fresh round 1 ({@link baselineOf}). Once per scan for
 * every probe that compares an answer with it when the flow is shared and `final` is the shared
 * run, else the probe's own. A measurement the second run did not complete is not kept.
 */
export async function noiseOfFlow(
  ctx: ProbeContext,
  flow: FoundFlow,
  final: Resumed,
  send: Send,
  label: string,
): Promise<Awaited<ReturnType<typeof baselineOf>>> {
  const { call } = flow.prepared;
  const shared = flow.shared;
  if (shared === undefined || ctx.setup === undefined || shared.identity !== send.owner)
    return baselineOf(ctx, call, final, send, label);
  const measure = (c: ProbeContext): ReturnType<typeof baselineOf> =>
    baselineOf(c, call, final, send, `${flow.prepared.subject}: ${label}`);
  const complete = (m: Awaited<ReturnType<typeof baselineOf>>): boolean => m.second !== undefined;
  return ctx.setup.once(`${shared.key}, run untouched again (noise)`, measure, complete);
}

/** The random-blob control's try, as the shared setup makes it. */
const RANDOM_TRY: SharedTry = { label: 'random blob of the same shape', change: randomSameShape };

/**
 * A random state of the same shape sent as `send.owner` on a fresh round 1 of the flow: the
 * control the tamper and error-oracle probes both begin with, the same experiment. Once per scan
 * for both when the flow is shared, with the question it was sent on (a probe that tries more on
 * that question adopts a copy, {@link SharedTries.adopt}); undefined when the flow is not shared,
 * and the probe sends its own.
 */
export async function sharedRandomTry(
  ctx: ProbeContext,
  flow: FoundFlow,
  send: SharedTriesOptions,
): Promise<FirstTry | undefined> {
  const shared = flow.shared;
  if (shared === undefined || ctx.setup === undefined || shared.identity !== send.owner)
    return undefined;
  const decided = (f: FirstTry): boolean =>
    f.result.resumed !== undefined && f.result.resumed.reading !== 'failure';
  return ctx.setup.once(
    `${shared.key}, a random state of the same shape`,
    (c) => firstTry(c, flow.prepared.call, send, RANDOM_TRY),
    decided,
  );
}

/** What {@link retryFresh} answered: a fresh round 1 and the retry sent on it. */
type Fresh = Awaited<ReturnType<typeof retryFresh>>;

/**
 * A retry on a fresh round 1 of the flow as A, sent once per scan for every probe that asks under
 * `what` when the flow is shared (no probe sends on its question afterwards); undefined when it is
 * not, and the probe sends its own. Kept when it drew a decision.
 */
function sharedFresh(
  ctx: ProbeContext,
  flow: FoundFlow,
  what: string,
  options: FreshRetry,
): Promise<Fresh | undefined> | undefined {
  const shared = flow.shared;
  if (shared === undefined || ctx.setup === undefined || shared.identity !== 'A') return undefined;
  const decided = (r: Fresh): boolean => r.resumed !== undefined && r.resumed.reading !== 'failure';
  return ctx.setup.once(
    `${shared.key}, ${what}`,
    (c) => retryFresh(c, flow.prepared.call, options),
    decided,
  );
}

/**
 * A's untouched round-1 state sent by B on A's own call: `state/replay-principal`'s first replay
 * and one of `state/error-oracle`'s presentations, the same experiment, once for both when the
 * flow is shared ({@link sharedFresh}).
 */
export async function sharedReplayByB(
  ctx: ProbeContext,
  flow: FoundFlow,
  shape: AnswerShape,
): Promise<Fresh | undefined> {
  return sharedFresh(ctx, flow, "A's untouched state sent by B", {
    owner: 'A',
    sender: 'B',
    shape,
    label: "B sends A's untouched state on A's call",
    change: (s) => s,
  });
}

/**
 * A's round-1 state of the flow sent on `other`, another request of A's: `state/replay-request`'s
 * first mismatch and one of `state/error-oracle`'s presentations, the same experiment, once for
 * both when the flow is shared ({@link sharedFresh}), keyed by the request it is sent on, so two
 * probes share it only when they chose the same one.
 */
export async function sharedMismatch(
  ctx: ProbeContext,
  flow: FoundFlow,
  other: Call,
  shape: AnswerShape,
): Promise<Fresh | undefined> {
  const on = createHash('sha256')
    .update(JSON.stringify([other.method, other.params]))
    .digest('hex');
  return sharedFresh(ctx, flow, `its state on request ${on.slice(0, 16)}`, {
    owner: 'A',
    label: "call 2 sent with call 1's state",
    shape,
    change: (s) => s,
    retryCall: other,
  });
}

/** What flow preparation met: flows, and the requests that could not be told apart from non-flows. */
export interface Discovery {
  readonly flows: FoundFlow[];
  readonly tried: string[];
  /** A request whose round 1 (or minting) drew no decision: its absence from `flows` proves nothing. */
  readonly failures: { subject: string; detail: string }[];
}

/** One flow's round 1 as an identity: its preparation, and what round 1 drew. */
interface FirstRound {
  readonly prep: Preparation;
  readonly first?: {
    readonly exchange: Exchange;
    readonly reading: Reading;
    readonly asked?: Asked;
  };
  /** Set on a round shared by the scan's probes. */
  readonly shared?: SharedRound;
}

/** Prepare `flow` and ask its round 1. */
async function firstRound(
  ctx: ProbeContext,
  flow: FlowRecipe,
  identity: IdentityName,
  tag: string,
): Promise<FirstRound> {
  const prep = await prepareCall(ctx, flow, identity, `${tag} ${flow.subject}`);
  if (!prep.ok) return { prep };
  const first = await ask(
    ctx,
    prep.prepared.call,
    identity,
    `${flow.subject}: round 1 as ${identity}`,
  );
  return { prep, first };
}

/**
 * `flow`'s round 1 as discovery asked it as `identity`, when it handed one on ({@link takeHanded}):
 * the same request, around discovery's canary and handle, its state never sent.
 */
function handedRound(
  ctx: ProbeContext,
  flow: FlowRecipe,
  identity: IdentityName,
): FirstRound | undefined {
  const h = takeHanded(flow, identity);
  if (h === undefined) return undefined;
  ctx.cite(`${flow.subject}: round 1 as ${identity} handed on from discovery, its state unsent`, [
    h.exchange,
  ]);
  const handles = h.handle === undefined ? [] : [h.handle];
  const prepared = {
    flow,
    subject: flow.subject,
    call: h.call,
    canary: h.canary,
    handles,
    minted: [],
  };
  return {
    prep: { ok: true, prepared },
    first: { exchange: h.exchange, reading: 'input', asked: h.asked },
  };
}

/** Whether a shared round drew a decision: one that did not is not kept. */
const decided = (r: FirstRound): boolean =>
  (r.prep.ok || r.prep.failure === undefined) && r.first?.reading !== 'failure';

/**
 * A flow the scan may set up once for every probe: a request that only reads or creates, so no
 * probe consumes the handle or the object it acts on; a destructive one only while the probes run
 * one after another (the held-back pass), else it is each probe's own.
 */
const shareable = (ctx: ProbeContext, flow: FlowRecipe): boolean =>
  ctx.setup !== undefined &&
  (flow.tool === undefined || byDefault(flow.tool) || ctx.setup.serial === true);

/**
 * `flow`'s round 1 as `identity`, prepared and asked once per scan for every probe that asks it
 * (discovery's own, when it handed one on), and run untouched once ({@link establishFlow}).
 */
async function sharedFirstRound(
  ctx: ProbeContext,
  flow: FlowRecipe,
  identity: IdentityName,
): Promise<FirstRound> {
  const key = `${flow.subject}${flow.needs === undefined ? '' : ` on ${recipeName(flow.needs)}`} as ${identity}`;
  const sharedRound = async (c: ProbeContext): Promise<FirstRound> => ({
    ...(handedRound(c, flow, identity) ?? (await firstRound(c, flow, identity, 'shared'))),
    shared: { key, identity, unspent: true },
  });
  return ctx.setup!.once(key, sharedRound, decided);
}

/**
 * `flow` as a {@link FoundFlow} of `identity`'s set up once per scan for every probe (see
 * {@link discoverFlows}), when it may be (it only reads or creates); else undefined, and the
 * probe prepares its own. `failed` is set when its round 1 or minting drew no decision.
 */
export async function sharedFlow(
  ctx: ProbeContext,
  flow: FlowRecipe,
  identity: IdentityName,
): Promise<{ readonly found?: FoundFlow; readonly failed?: Exchange } | undefined> {
  if (!shareable(ctx, flow)) return undefined;
  const { prep, first, shared } = await sharedFirstRound(ctx, flow, identity);
  if (!prep.ok) return prep.failure === undefined ? {} : { failed: prep.failure };
  if (first?.reading === 'failure') return { failed: first.exchange };
  const state = first?.asked?.state;
  if (first?.asked === undefined || state === undefined || shared === undefined) return {};
  return { found: { prepared: prep.prepared, asked: { ...first.asked, state }, shared } };
}

/**
 * Ask each discovered flow, as `identity`, until `limit` of them asked again. With `shared`, a
 * flow that only reads or creates is prepared and asked once per scan for every probe that asks
 * the same, and run untouched once when one of them needs it ({@link establishFlow}).
 */
export async function discoverFlows(
  ctx: ProbeContext,
  identity: IdentityName,
  options: { limit: number; maxTools: number; tag: string; shared?: boolean },
): Promise<Discovery> {
  const discovery: Discovery = {
    flows: [],
    tried: [],
    failures: ctx.surface.failures.map((f) => ({ subject: 'discovery', detail: f })),
  };
  for (const flow of ctx.surface.flows.slice(0, options.maxTools)) {
    if (discovery.flows.length >= options.limit) break;
    discovery.tried.push(flow.subject);
    const share = options.shared === true && shareable(ctx, flow);
    const { prep, first, shared } = share
      ? await sharedFirstRound(ctx, flow, identity)
      : await firstRound(ctx, flow, identity, options.tag);
    if (!prep.ok) {
      if (prep.failure !== undefined)
        discovery.failures.push({ subject: flow.subject, detail: describe(prep.failure) });
      continue;
    }
    if (first === undefined) continue;
    if (first.reading === 'failure')
      discovery.failures.push({ subject: flow.subject, detail: describe(first.exchange) });
    const asked = first.asked;
    if (asked !== undefined && asked.state !== undefined) {
      discovery.flows.push({
        prepared: prep.prepared,
        asked: { ...asked, state: asked.state },
        ...(shared === undefined ? {} : { shared }),
      });
    }
  }
  return discovery;
}

/** The skip or error when no flow was found: a probe's decision as it stands. */
export function noFlowReason(
  ctx: ProbeContext,
  d: Discovery,
): { verdict: 'skipped' | 'errored'; reason: string } {
  const failed = d.failures[0];
  if (failed !== undefined) {
    return {
      verdict: 'errored',
      reason: `no flow found, but ${failed.subject} drew no decision (${failed.detail}), so its absence proves nothing`,
    };
  }
  const tried = [...d.tried, ...ctx.surface.tried];
  return {
    verdict: 'skipped',
    reason: `precondition: a tool, prompt or resource that answers input_required with a requestState (tried: ${tried.length > 0 ? tried.join(', ') : 'nothing callable'})`,
  };
}
