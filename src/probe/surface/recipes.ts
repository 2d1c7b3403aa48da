/**
 * What discovery found, in a form every probe can replay with fresh values: a handle recipe says
 * which call mints a value, where in its answer the value sits, and which call takes it back (a
 * tool parameter at any depth, or a `resources/read` URI); a flow recipe says how to start a request
 * that answers `input_required` with a `requestState`, and which handle it needs first.
 */
import type { ProbeContext } from '../define.js';
import { callThrough, toolCall, type Call, type Driven } from '../trials/rounds.js';
import { makeCanary } from '../evidence/markers.js';
import { argumentsFor, pathKey } from './schema.js';
import type { IdentityName, ToolInfo } from '../types.js';
import { findLike, type Found } from './harvest.js';

/** Where a minted value goes back in. */
export type Consumer =
  | {
      readonly kind: 'tool';
      readonly tool: ToolInfo;
      readonly path: readonly string[];
      /** The parameter is a number: the handle (an integer id) goes as a number. */
      readonly numeric?: true;
    }
  | {
      readonly kind: 'resource';
      /** A URI template (`snippet://{id}`) whose variables the value fills; absent: the value is the URI. */
      readonly template?: string;
    };

/** A value one call mints and another takes back. */
export interface HandleRecipe {
  readonly minter: ToolInfo;
  readonly found: Found;
  readonly consumer: Consumer;
  /** The consumer refused a placeholder and took the minted value: it checks what it is given. */
  readonly checked: boolean;
}

/** A request that answers `input_required` with a `requestState`. */
export interface FlowRecipe {
  readonly subject: string;
  /** The handle to mint first, when the request takes one. */
  readonly needs?: HandleRecipe;
  /** The request, around a fresh canary and the minted handle. */
  build(canary: string, handle?: string): Call;
  /** The tool declares `readOnlyHint: true` (or the request is a prompt or a resource read). */
  readonly readOnly: boolean;
  /** The tool, when the request is a `tools/call`. */
  readonly tool?: ToolInfo;
}

/** Everything discovery found, and what it tried. */
export interface SurfaceMap {
  readonly handles: readonly HandleRecipe[];
  readonly flows: readonly FlowRecipe[];
  /** What was tried, in words, for a skip that says what it looked at. */
  readonly tried: readonly string[];
  /** Requests that drew no decision during discovery: what they might have been proves nothing. */
  readonly failures: readonly string[];
}

/** A name for the consumer of a recipe: `getItinerary.lookup.bookingCode`, `resources/read snippet://{id}`. */
export function consumerName(c: Consumer): string {
  return c.kind === 'tool'
    ? `${c.tool.name}.${c.path.join('.')}`
    : `resources/read ${c.template ?? '(minted URI)'}`;
}

/** `minter → consumer` */
export function recipeName(r: HandleRecipe): string {
  return `${r.minter.name} → ${consumerName(r.consumer)}`;
}

/** Fill every `{var}` (and RFC 6570 `{+var}`, `{/var}` …) of a URI template with `value`. */
export function fillTemplate(template: string, value: string): string {
  return template.replace(/\{([+#./;?&]?)[^}]*\}/g, (_, op: string) =>
    op === '+' || op === '#' ? value : encodeURIComponent(value),
  );
}

/** The call that presents `handle` to `consumer`, with a fresh canary in free-form strings. */
export function consumerCall(consumer: Consumer, handle: string, canary: string): Call {
  if (consumer.kind === 'resource') {
    const uri = consumer.template === undefined ? handle : fillTemplate(consumer.template, handle);
    return { method: 'resources/read', params: { uri }, subject: `resources/read ${uri}` };
  }
  const args = argumentsFor(
    consumer.tool.inputSchema,
    { canary, boolean: false },
    { [pathKey(consumer.path)]: consumer.numeric === true ? Number(handle) : handle },
  );
  return toolCall(consumer.tool.name, args);
}

/** A minting, as one identity saw it: every round's answer, and the handle found in them. */
export interface Minted {
  readonly driven: Driven;
  readonly canary: string;
  readonly handle?: string;
}

/** `who` calls the recipe's minter with a fresh canary and finds the handle in its answers. */
export async function mint(
  ctx: ProbeContext,
  recipe: HandleRecipe,
  who: IdentityName,
  label: string,
  canary: string = makeCanary(`mint-${who}`),
): Promise<Minted> {
  const args = argumentsFor(recipe.minter.inputSchema, { canary, boolean: false });
  const driven = await callThrough(ctx, toolCall(recipe.minter.name, args), who, label);
  const handle = driven.answered ? findLike(driven.answers, driven.sent, recipe.found) : undefined;
  return { driven, canary, ...(handle === undefined ? {} : { handle }) };
}
