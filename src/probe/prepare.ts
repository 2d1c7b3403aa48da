/**
 * Getting a tool ready to call as one identity: mint the handles it requires through the tools that
 * issue them (each minting carries a fresh canary in its free-form strings), and find the tools that
 * answer `input_required` with a `requestState`.
 */
import type { ProbeContext } from './define.js';
import { ask, readOutcome, type Asked, type ToolCall } from './flow.js';
import { makeCanary } from './markers.js';
import {
  argumentsFor,
  callableTools,
  mintedValue,
  mintersFor,
  objectShape,
  requiredHandles,
} from './surface.js';
import type { Exchange, IdentityName, ToolInfo } from './types.js';

/** A call ready to send: its arguments, the canary planted in them, and the handles minted. */
export interface Prepared {
  readonly tool: ToolInfo;
  readonly call: ToolCall;
  readonly canary: string;
  readonly handles: readonly string[];
  /** The minting answers, as the identity saw them. */
  readonly minted: readonly unknown[];
}

/** A prepared call, or why there is none (`failure` when a minting call drew no decision). */
export type Preparation =
  | { readonly ok: true; readonly prepared: Prepared }
  | { readonly ok: false; readonly why: string; readonly failure?: Exchange };

/** Mint what `tool` requires as `identity` and build its arguments around a fresh canary. */
export async function prepareCall(
  ctx: ProbeContext,
  tool: ToolInfo,
  identity: IdentityName,
  tag: string,
): Promise<Preparation> {
  const canary = makeCanary(tag);
  const tools = callableTools(ctx.protocol.tools, ctx.includeDestructive);
  const fill: Record<string, unknown> = {};
  const handles: string[] = [];
  const minted: unknown[] = [];
  for (const property of requiredHandles(tool)) {
    let found: string | undefined;
    for (const minter of mintersFor(
      property,
      tools.filter((t) => t !== tool),
    ).slice(0, 2)) {
      const args = argumentsFor(minter.inputSchema, { canary, boolean: false });
      const exchange = await ctx.request(
        'tools/call',
        { name: minter.name, arguments: args },
        { identity, label: `${tag}: ${minter.name} mints ${property} as ${identity}` },
      );
      const reading = readOutcome(exchange.outcome);
      if (reading === 'failure')
        return { ok: false, why: `${minter.name} did not answer`, failure: exchange };
      if (reading !== 'accepted' || exchange.outcome.kind !== 'result') continue;
      found = mintedValue(exchange.outcome.result, property, minter);
      if (found !== undefined) {
        minted.push(exchange.outcome.result);
        break;
      }
    }
    if (found === undefined) return { ok: false, why: `no tool minted a ${property} for it` };
    fill[property] = found;
    handles.push(found);
  }
  const call = {
    name: tool.name,
    arguments: argumentsFor(tool.inputSchema, { canary, boolean: false }, fill),
  };
  return { ok: true, prepared: { tool, call, canary, handles, minted } };
}

/**
 * The order in which tools are asked whether they take input: read-only tools first (the safest
 * to drive to completion), then tools that take a handle (their state names what they act on),
 * then the fewest required arguments.
 */
export function flowCandidates(tools: readonly ToolInfo[]): ToolInfo[] {
  const key = (t: ToolInfo): number =>
    (t.annotations?.['readOnlyHint'] === true ? 0 : 100) +
    (requiredHandles(t).length > 0 ? 0 : 50) +
    objectShape(t.inputSchema).required.length;
  return [...tools].sort((a, b) => key(a) - key(b));
}

/** A tool that asked for input with a `requestState`, with the call that made it ask. */
export interface FoundFlow {
  readonly prepared: Prepared;
  readonly asked: Asked & { readonly state: string };
}

/** What flow discovery met: flows, and the tools that could not be told apart from non-flows. */
export interface Discovery {
  readonly flows: FoundFlow[];
  readonly tried: string[];
  /** A tool whose round 1 (or minting) drew no decision: its absence from `flows` proves nothing. */
  readonly failures: { tool: string; exchange: Exchange }[];
}

/** Ask each candidate tool, as `identity`, until `limit` flows are found or `maxTools` are tried. */
export async function discoverFlows(
  ctx: ProbeContext,
  identity: IdentityName,
  options: { limit: number; maxTools: number; tag: string },
): Promise<Discovery> {
  const discovery: Discovery = { flows: [], tried: [], failures: [] };
  const tools = flowCandidates(callableTools(ctx.protocol.tools, ctx.includeDestructive));
  for (const tool of tools.slice(0, options.maxTools)) {
    if (discovery.flows.length >= options.limit) break;
    discovery.tried.push(tool.name);
    const prep = await prepareCall(ctx, tool, identity, `${options.tag} ${tool.name}`);
    if (!prep.ok) {
      if (prep.failure !== undefined)
        discovery.failures.push({ tool: tool.name, exchange: prep.failure });
      continue;
    }
    const first = await ask(
      ctx,
      prep.prepared.call,
      identity,
      `${tool.name}: round 1 as ${identity}`,
    );
    if (first.reading === 'failure')
      discovery.failures.push({ tool: tool.name, exchange: first.exchange });
    const asked = first.asked;
    if (asked !== undefined && asked.state !== undefined) {
      discovery.flows.push({ prepared: prep.prepared, asked: { ...asked, state: asked.state } });
    }
  }
  return discovery;
}

/** The skip or error when discovery found no flow: a probe's decision as it stands. */
export function noFlowReason(d: Discovery): { verdict: 'skipped' | 'errored'; reason: string } {
  const failed = d.failures[0];
  if (failed !== undefined) {
    return {
      verdict: 'errored',
      reason: `no flow found, but ${failed.tool} drew no decision, so its absence proves nothing`,
    };
  }
  const tried = d.tried.length > 0 ? d.tried.join(', ') : 'no callable tool';
  return {
    verdict: 'skipped',
    reason: `precondition: a non-destructive tool that answers input_required with a requestState (tried: ${tried})`,
  };
}
