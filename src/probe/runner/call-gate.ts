/**
 * What the runner may send, once the call plan (`plan/`) has classed every tool: the call
 * permission of a pass, and the call gate that is the defence in depth behind every probe
 * (docs/scanner.md, "What a scan calls"):
 *
 * 1. **Only the plan's callable tools**: `read` and `create` without the user's word; a tool named
 *    by `--allow-tool`, or every tool with `--include-destructive`, only in the pass where the
 *    user's word is in force (the last one).
 * 2. **Dangerous slots**: no value the server minted ever goes into a parameter that takes a
 *    command, code, a query, a URL or a file path without `--allow-minted-in-risky` (the server
 *    would then choose what runs).
 * 3. **Optional dangerous slots stay unset**: an argument in a dangerous slot the schema does not
 *    require is stripped before the request is sent ({@link withoutOptionalSlots}), whoever built
 *    the arguments (discovery, a choice, a recipe, a probe's mutation); the call plan counts such a
 *    slot as no harm for that reason.
 * 4. **Only what the scan created**: a tool that does more than read gets, besides canaries, only
 *    values that a call of this scan created (see {@link MintedValues}); never a value the server
 *    handed out that the scan did not make (a listed channel), nor a value its own schema offers
 *    where a parameter names a target (`enum`, `default`, `examples` of a `channel`: for a tool
 *    that acts, those are real targets).
 */
import {
  classOf,
  grantOf,
  judgeTool,
  leftAloneWhy,
  type CallPermission,
} from '../plan/tool-risk.js';
import { dangerousSlots } from '../plan/slots.js';
import type { ToolInfo } from '../model/tools.js';
import type { MintedValues } from './minted-values.js';
import { isRecord } from '../model/json.js';

/** What the runner needs to decide whether a `tools/call` may be sent. */
export interface CallGate extends CallPermission {
  /** `--allow-minted-in-risky`: let a server-minted value reach a risky parameter. */
  readonly allowMintedInRisky?: boolean;
  readonly minted?: MintedValues;
}

/**
 * Why the runner must not send this `tools/call`, or `undefined` when it may. Probes filter with
 * the same rules; this is the defence in depth that catches a probe (or discovery) bug.
 */
export function callRefusal(
  tool: ToolInfo | undefined,
  name: string,
  args: unknown,
  gate: CallGate,
): string | undefined {
  const declared = tool ?? { name };
  // A tool the server does not list has no declaration to read: unknown, and not called.
  if (grantOf(declared, gate) === undefined)
    return tool === undefined
      ? `'${name}' is not in the target's tools/list, so not in the call plan (needs --allow-tool ${name})`
      : `'${name}' ${leftAloneWhy(classOf(declared).class, classOf(declared).evidence, `--allow-tool ${name}`)}`;
  const param = gate.allowMintedInRisky ? undefined : gate.minted?.mintedIntoRisky(tool, args);
  if (param !== undefined)
    return `'${name}' would get a value the server minted in its parameter "${param}" (needs --allow-minted-in-risky)`;
  if (judgeTool(declared).writes) {
    const notMade = gate.minted?.notOurs(tool, args);
    if (notMade !== undefined)
      return `'${name}' does more than read, and "${notMade}" would hold a value this scan did not create (a tool that acts only ever gets what the scan made)`;
  }
  gate.minted?.sent(args);
  return undefined;
}

/** Arguments with every optional dangerous slot left out, and the paths of what was left out. */
export interface Stripped {
  readonly args: unknown;
  readonly stripped: readonly string[];
}

/**
 * The call gate's rule for optional dangerous slots: an argument in a parameter that takes a
 * command, code, a database query, a URL or a file path and that the schema does not require (at
 * whatever depth) is removed, in every element of an array on its path. The scanner never fills
 * such a slot, so a tool that would save a file or fetch a URL only when asked never is. `args` is
 * not changed; a copy is returned when anything was removed.
 */
export function withoutOptionalSlots(tool: ToolInfo | undefined, args: unknown): Stripped {
  if (tool === undefined || !isRecord(args)) return { args, stripped: [] };
  const optional = dangerousSlots(tool).filter((s) => s.optional);
  if (optional.length === 0) return { args, stripped: [] };
  const stripped = new Set<string>();
  const strip = (v: unknown, path: readonly string[], at: readonly string[]): unknown => {
    if (Array.isArray(v)) return v.map((item) => strip(item, path, at));
    if (!isRecord(v) || path.length === 0) return v;
    const [head, ...rest] = path as [string, ...string[]];
    if (!(head in v)) return v;
    const copy = { ...v };
    if (rest.length === 0) {
      delete copy[head];
      stripped.add([...at, head].join('.'));
    } else copy[head] = strip(v[head], rest, [...at, head]);
    return copy;
  };
  let out: unknown = args;
  for (const slot of optional) out = strip(out, slot.path, []);
  return stripped.size === 0 ? { args, stripped: [] } : { args: out, stripped: [...stripped] };
}
