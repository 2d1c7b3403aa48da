/**
 * The shape of what discovery found (see `surface/recipes.ts`, which mints and presents the values):
 * plain types, so the probe contract (`probe.ts`) can name a {@link SurfaceMap} without importing
 * the code that finds it or drives calls, which itself imports that contract.
 */
import type { Call } from './call.js';
import type { ToolInfo } from './tools.js';

/**
 * A request that hands values out but is no tool: a listed resource's `resources/read` or a
 * `prompts/get`. What it hands out was there before the scan, never created by it.
 */
export interface Reader {
  readonly kind: 'resource' | 'prompt';
  /** `resources/read orders://recent`, `prompt order_help`. */
  readonly name: string;
  /** The request, around a fresh canary (a prompt's arguments carry it; a resource has none). */
  build(canary: string): Call;
}

/** What handed a value out: a tool, or a resource or prompt ({@link Reader}). */
export type Minter = ToolInfo | Reader;

/** Whether `minter` is a resource or a prompt (JSON never holds a function, so no tool is one). */
export const isReader = (minter: Minter): minter is Reader =>
  typeof (minter as Partial<Reader>).build === 'function';

/** Another slot of a consumer that takes several minted values, and what fills it. */
export interface CoSlot {
  readonly path: readonly string[];
  readonly numeric?: true;
  /** The call that mints its value, and where the value sits in its answer. */
  readonly minter: Minter;
  readonly found: Found;
}

/** Where a minted value goes back in. */
export type Consumer =
  | {
      readonly kind: 'tool';
      readonly tool: ToolInfo;
      readonly path: readonly string[];
      /** The parameter is a number: the handle (an integer id) goes as a number. */
      readonly numeric?: true;
      /** The consumer's other slots that take minted values (filled with the caller's own). */
      readonly others?: readonly CoSlot[];
    }
  | {
      readonly kind: 'resource';
      /** A URI template (`snippet://{id}`) whose variables the value fills; absent: the value is the URI. */
      readonly template?: string;
    };

/** A value that differs between two answers to the same request: what a call minted. */
export interface Varying {
  readonly path: string;
  /** The whole leaf, when it varies as a whole or is a single token; else the varying token. */
  readonly value: string;
  /** The token index within the leaf, when only a token of it varies. */
  readonly index?: number;
}

/** A value an answer handed out, and where it sat. */
export interface Found {
  readonly value: string;
  /** The key it sat under (`bookingCode`, `uri`), when it had one. */
  readonly key?: string;
  /**
   * Where it sat, stable across answers of the same call (`r0:structuredContent.booking.code`,
   * `r1:content.0.text#2`): a fresh answer's value at the same place is the fresh handle.
   */
  readonly where: string;
  readonly kind: 'structured' | 'json' | 'prose' | 'link' | 'meta';
  /** An integer (`{"ticket": {"id": 17}}`), which a numeric parameter takes as a number. */
  readonly numeric?: true;
  /** It differed between two identical minting calls (else: held by a deterministic mint). */
  readonly varying?: true;
  /** The round of the minting call whose answer held it, and its position there. */
  readonly round: number;
  readonly position: Varying;
}

/** One argument changed from the placeholder's: the value that opened a flow. */
export interface Choice {
  readonly path: readonly string[];
  readonly value: string | number | boolean;
}

/** A value one call mints and another takes back. */
export interface HandleRecipe {
  readonly minter: Minter;
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
  /** The request, around a fresh canary, the minted handle and the values of its other slots. */
  build(canary: string, handle?: string, co?: readonly string[]): Call;
  /** The tool declares `readOnlyHint: true` (or the request is a prompt or a resource read). */
  readonly readOnly: boolean;
  /** The tool, when the request is a `tools/call`. */
  readonly tool?: ToolInfo;
  /**
   * The argument value, other than the placeholder's, that opened the flow (`priority: "urgent"`);
   * {@link FlowRecipe.build} sends it on every call.
   */
  readonly choice?: Choice;
}

/** How `tried` names a tool whose placeholder call was answered `-32603 Internal error`. */
export const INTERNAL_ERROR = 'internal error -32603';

/** Why a tool was not reached when the survey's share of `--deadline` ran out. */
export const SURVEY_CAP_PASSED = "the survey's time cap passed";
/** Why a tool was not reached when the survey's call budget ran out. */
export const SURVEY_BUDGET_SPENT = "the survey's call budget was spent";

/**
 * The sentence that says discovery was cut short, whole (no report cuts it), or undefined when it
 * reached every tool: `Discovery was cut short by its time cap (a third of --deadline) before it
 * reached 26 tools; raise --deadline to reach them.` Only the time cap names the flag: no flag
 * raises the call budget.
 */
export function cutShortSentence(
  notReached: readonly { readonly why: string }[] | undefined,
): string | undefined {
  const n = notReached?.length ?? 0;
  if (n === 0) return undefined;
  const tools = n === 1 ? '1 tool' : `${n} tools`;
  return notReached?.some((r) => r.why.endsWith(SURVEY_CAP_PASSED)) === true
    ? `Discovery was cut short by its time cap (a third of --deadline) before it reached ${tools}; raise --deadline to reach ${n === 1 ? 'it' : 'them'}.`
    : `Discovery spent its call budget before it reached ${tools}; each is named in the report.`;
}

/** Everything discovery found, and what it tried. */
export interface SurfaceMap {
  readonly handles: readonly HandleRecipe[];
  readonly flows: readonly FlowRecipe[];
  /** What was tried, in words, for a skip that says what it looked at. */
  readonly tried: readonly string[];
  /** Requests that drew no decision during discovery: what they might have been proves nothing. */
  readonly failures: readonly string[];
  /** Callable tools the survey did not finish with, and why (its time cap, its call budget). */
  readonly notReached?: readonly { readonly tool: string; readonly why: string }[];
  /** Client capabilities a `-32021` asked for during discovery that the scanner cannot honour. */
  readonly lacking?: readonly string[];
}
