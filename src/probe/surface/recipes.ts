/**
 * What discovery found, in a form every probe can replay with fresh values: a handle recipe says
 * which call mints a value, where in its answer the value sits (its position, found by difference),
 * and which call takes it back (a tool parameter at any depth, or a `resources/read` URI); a flow
 * recipe says how to start a request that answers `input_required` with a `requestState`, and which
 * handle it needs first. A consumer that takes several minted values (`add_to_segment(contactId,
 * segmentId)`) has one recipe per slot: the slot under test, and the other slots with the minting
 * each one needs, so the caller's own values can fill them.
 */
import type { ProbeContext } from '../model/probe.js';
import {
  callThrough,
  sameCall,
  toolCall,
  type Asked,
  type Call,
  type Driven,
} from '../driver/rounds.js';
import type { Exchange } from '../model/wire.js';
import { makeCanary } from '../evidence/markers.js';
import { argumentsFor, pathKey } from '../driver/schema.js';
import type { IdentityName } from '../model/target.js';
import { findLike } from './harvest.js';
import type { Found } from '../model/surface-map.js';
import {
  isReader,
  type CoSlot,
  type Consumer,
  type FlowRecipe,
  type HandleRecipe,
  type Minter,
} from '../model/surface-map.js';

// The recipes' shapes live in model/surface-map.ts, which the probe contract (model/probe.ts) can
// import without reaching the driving code below; importers keep this path.
export type {
  CoSlot,
  Consumer,
  FlowRecipe,
  HandleRecipe,
  Minter,
  Reader,
  SurfaceMap,
} from '../model/surface-map.js';
export { isReader } from '../model/surface-map.js';

/** A name for the consumer of a recipe: `getItinerary.lookup.bookingCode`, `resources/read snippet://{id}`. */
export function consumerName(c: Consumer): string {
  return c.kind === 'tool'
    ? `${c.tool.name}.${c.path.join('.')}`
    : `resources/read ${c.template ?? '(minted URI)'}`;
}

/** `minter → consumer`, and the other slots the caller's own values fill. */
export function recipeName(r: HandleRecipe): string {
  const others = othersOf(r);
  const also =
    others.length === 0
      ? ''
      : ` (own ${others.map((o) => `${o.path.join('.')} from ${o.minter.name}`).join(', ')})`;
  return `${r.minter.name} → ${consumerName(r.consumer)}${also}`;
}

/**
 * A flow's round 1 as discovery asked it, its state never sent: the request (built around one
 * canary, planted in the minting call too when it takes a handle), the handle, who asked, and the
 * answer that asked for input.
 */
export interface HandedRound {
  readonly call: Call;
  readonly canary: string;
  readonly handle?: string;
  readonly identity: IdentityName;
  readonly exchange: Exchange;
  readonly asked: Asked & { readonly state: string };
}

/** Rounds discovery handed on, each taken at most once (a state is never presented twice). */
const handed = new WeakMap<FlowRecipe, HandedRound>();

/**
 * Keeps `round` for the first taker of `flow`'s round 1, when it is the very request `flow` builds
 * around `round.canary` and `round.handle` (so a taker reads it as its own round 1 would read).
 */
export function handOn(flow: FlowRecipe, round: HandedRound): void {
  if (sameCall(flow.build(round.canary, round.handle), round.call)) handed.set(flow, round);
}

/** Withdraws `flow`'s handed round: a later call of discovery's may have consumed its handle. */
export function withdrawHanded(flow: FlowRecipe): void {
  handed.delete(flow);
}

/** `flow`'s round 1 as discovery asked it as `identity`, once; afterwards undefined. */
export function takeHanded(flow: FlowRecipe, identity: IdentityName): HandedRound | undefined {
  const round = handed.get(flow);
  if (round === undefined || round.identity !== identity) return undefined;
  handed.delete(flow);
  return round;
}

/**
 * A handle recipe's first pair as discovery made it, as A: the minting call (the first of its two
 * identical calls, around its canary) and the consumer's one-round answer on the value it minted.
 * The handle probe's own first mint and read would be these very requests.
 */
export interface HandedPair {
  readonly minted: Minted & { readonly handle: string };
  readonly read: Driven;
}

/** Pairs discovery handed on, each taken at most once. */
const handedPairs = new WeakMap<HandleRecipe, HandedPair>();

/**
 * Keeps `pair` for the first taker of `recipe`: only a one-slot consumer (a consumer of several
 * values needs A's own value minted for each other slot) whose read asked for nothing (the probe
 * drives every read through all its rounds).
 */
export function handOnPair(recipe: HandleRecipe, pair: HandedPair): void {
  if (othersOf(recipe).length === 0 && pair.read.answered && pair.read.sent.length === 1)
    handedPairs.set(recipe, pair);
}

/** Withdraws `recipe`'s handed pair: a later call of discovery's may have consumed its handle. */
export function withdrawPair(recipe: HandleRecipe): void {
  handedPairs.delete(recipe);
}

/** `recipe`'s first pair as discovery made it, once; afterwards undefined. */
export function takeHandedPair(recipe: HandleRecipe): HandedPair | undefined {
  const pair = handedPairs.get(recipe);
  handedPairs.delete(recipe);
  return pair;
}

/** Fill every `{var}` (and RFC 6570 `{+var}`, `{/var}` …) of a URI template with `value`. */
export function fillTemplate(template: string, value: string): string {
  return template.replace(/\{([+#./;?&]?)[^}]*\}/g, (_, op: string) =>
    op === '+' || op === '#' ? value : encodeURIComponent(value),
  );
}

/**
 * The call that presents `handle` to `consumer`, with a fresh canary in free-form strings, and
 * `co` (the values for the consumer's other slots, in order) where it has other slots; a slot
 * without one gets a placeholder.
 */
export function consumerCall(
  consumer: Consumer,
  handle: string,
  canary: string,
  co: readonly string[] = [],
): Call {
  if (consumer.kind === 'resource') {
    const uri = consumer.template === undefined ? handle : fillTemplate(consumer.template, handle);
    return { method: 'resources/read', params: { uri }, subject: `resources/read ${uri}` };
  }
  const fill: Record<string, unknown> = {};
  (consumer.others ?? []).forEach((o, i) => {
    const v = co[i];
    if (v !== undefined) fill[pathKey(o.path)] = o.numeric === true ? Number(v) : v;
  });
  fill[pathKey(consumer.path)] = consumer.numeric === true ? Number(handle) : handle;
  const args = argumentsFor(consumer.tool.inputSchema, { canary, boolean: false }, fill);
  return toolCall(consumer.tool.name, args);
}

/** A minting, as one identity saw it: every round's answer, and the handle found in them. */
export interface Minted {
  readonly driven: Driven;
  readonly canary: string;
  readonly handle?: string;
  /**
   * For a consumer with other slots: the caller's own values for them, in order (each minted by
   * its own call, whose answers are in `also`). Absent when one of them could not be minted.
   */
  readonly co?: readonly string[];
  readonly also?: readonly Driven[];
}

/** The other slots of a recipe's consumer (none for a resource or a one-slot tool). */
export const othersOf = (recipe: HandleRecipe): readonly CoSlot[] =>
  recipe.consumer.kind === 'tool' ? (recipe.consumer.others ?? []) : [];

/**
 * `who` calls the recipe's minter with a fresh canary and finds the handle in its answers at the
 * place the survey saw it minted; for a consumer with other slots, `who` mints a value for each
 * of them too (with the same canary), so every slot holds a value of its own.
 */
export async function mint(
  ctx: ProbeContext,
  recipe: HandleRecipe,
  who: IdentityName,
  label: string,
  canary: string = makeCanary(`mint-${who}`),
): Promise<Minted> {
  const once = async (minter: Minter, like: Found, what: string) => {
    // A resource or a prompt hands its value out again on the same request.
    const call = isReader(minter)
      ? minter.build(canary)
      : toolCall(minter.name, argumentsFor(minter.inputSchema, { canary, boolean: false }));
    const driven = await callThrough(ctx, call, who, what);
    const value = driven.answered ? findLike(driven.answers, like) : undefined;
    return { driven, value };
  };
  const main = await once(recipe.minter, recipe.found, label);
  const base: Minted = {
    driven: main.driven,
    canary,
    ...(main.value === undefined ? {} : { handle: main.value }),
  };
  const others = othersOf(recipe);
  if (others.length === 0 || main.value === undefined) return base;
  const co: string[] = [];
  const also: Driven[] = [];
  for (const [i, o] of others.entries()) {
    const m = await once(o.minter, o.found, `${label} (slot ${o.path.join('.')}, ${i + 2})`);
    also.push(m.driven);
    if (m.value === undefined) return { ...base, also };
    co.push(m.value);
  }
  return { ...base, co, also };
}
