/**
 * Discovery by value. A handle is a value one call returns that another call accepts, whatever
 * either is named: the survey calls each safe tool once as A with placeholder arguments, harvests
 * every value the answers hand out, and offers those values to every string parameter (at any
 * depth) and to `resources/read` (links, templates), best hint first. A parameter that refused the
 * placeholder and takes the minted value is a handle slot; a request that answers `input_required`
 * with a `requestState` (a tool, a prompt, a resource) is a flow. Everything is bounded by the
 * survey's call budget, and what was tried is kept for the report.
 */
import type { ProbeContext } from '../define.js';
import {
  ask,
  callThrough,
  describe,
  readOutcome,
  resultOf,
  toolCall,
  type Call,
} from '../trials/rounds.js';
import { makeCanary, shows } from '../evidence/markers.js';
import {
  argumentsFor,
  callableTools,
  isReferenceName,
  objectShape,
  slotsOf,
  wordsOf,
  type Slot,
} from './schema.js';
import type { Exchange, PromptInfo, ToolInfo } from '../types.js';
import { harvestRounds, type Found } from './harvest.js';
import { isRiskyParameter } from './tool-risk.js';
import {
  consumerCall,
  fillTemplate,
  recipeName,
  type FlowRecipe,
  type HandleRecipe,
  type SurfaceMap,
} from './recipes.js';

/** Calls the survey may send. */
export const SURVEY_BUDGET = 48;
const MAX_TOOLS = 12;
const TRIES_PER_CONSUMER = 3;
const MAX_RESOURCES = 3;
const MAX_PROMPTS = 3;

/** A value harvested from a tool's answers. */
interface Offer {
  readonly found: Found;
  readonly minter: ToolInfo;
  /** The canary planted in the minting call: an answer that shows it is about the minted object. */
  readonly canary?: string;
}

// Words that say nothing about what a value is.
const GENERIC = new Set(
  'id ids the a an of to for get read by with new create open make value name string data text info'.split(
    ' ',
  ),
);
const nouns = (text: string): string[] =>
  wordsOf(text).filter((w) => w.length > 1 && !GENERIC.has(w));

/** How well `offer` fits `slot`, or `undefined` when the schema rules it out. */
export function fitScore(slot: Slot, offer: Offer): number | undefined {
  const s = slot.schema;
  const value = offer.found.value;
  if (slot.numeric === true && offer.found.numeric !== true) return undefined;
  if (slot.numeric === true) {
    const n = Number(value);
    if (typeof s['minimum'] === 'number' && n < s['minimum']) return undefined;
    if (typeof s['maximum'] === 'number' && n > s['maximum']) return undefined;
  }
  if (typeof s['maxLength'] === 'number' && value.length > s['maxLength']) return undefined;
  if (typeof s['minLength'] === 'number' && value.length < s['minLength']) return undefined;
  let score = 0;
  if (typeof s['pattern'] === 'string') {
    try {
      if (!new RegExp(s['pattern'], 'u').test(value)) return undefined;
      score += 4;
    } catch {
      // A pattern JavaScript cannot read: no hint either way.
    }
  }
  const isUri = /^[a-z][a-z0-9+.-]*:\/\//i.test(value);
  if ((s['format'] === 'uri' || s['format'] === 'url') && !isUri) return undefined;
  // The key a value sat under says most; the name of the tool that minted it says less.
  const slotWords = nouns(slot.path.join(' '));
  const keyWords = new Set(nouns(offer.found.key ?? ''));
  const minterWords = new Set(nouns(offer.minter.name));
  score += Math.min(8, 4 * slotWords.filter((w) => keyWords.has(w)).length);
  score += Math.min(2, 2 * slotWords.filter((w) => minterWords.has(w) && !keyWords.has(w)).length);
  if (isReferenceName(slot.path[slot.path.length - 1] ?? '') || typeof s['pattern'] === 'string')
    score += 2;
  if (offer.found.kind === 'structured' || offer.found.kind === 'json') score += 1;
  if (/\d/.test(value)) score += 1;
  if (offer.found.kind === 'link' && !isUri) score -= 1;
  return score;
}

/** Runs the survey as identity A. */
export async function survey(ctx: ProbeContext): Promise<SurfaceMap> {
  const handles: HandleRecipe[] = [];
  const flows: FlowRecipe[] = [];
  const tried: string[] = [];
  const failures: string[] = [];
  const failed = (what: string, e: Exchange): void => {
    if (readOutcome(e.outcome) === 'failure') failures.push(`${what}: ${describe(e)}`);
  };
  const spent = (e: Exchange): boolean =>
    e.outcome.kind === 'failure' && ['budget', 'deadline'].includes(e.outcome.failure);

  // 1. Every safe tool once, with placeholders: what it hands out, and whether it refuses them.
  const tools = callableTools(ctx.protocol.tools, ctx.includeDestructive)
    .sort((a, b) => requiredCount(a) - requiredCount(b))
    .slice(0, MAX_TOOLS);
  const offers: Offer[] = [];
  const refusedPlaceholder = new Set<ToolInfo>();
  for (const tool of tools) {
    const canary = makeCanary('survey');
    const call = toolCall(tool.name, argumentsFor(tool.inputSchema, { canary, boolean: false }));
    const label = `survey: ${tool.name} with placeholder arguments`;
    const first = await ask(ctx, call, 'A', label);
    if (spent(first.exchange)) break;
    failed(tool.name, first.exchange);
    if (first.reading === 'refused') refusedPlaceholder.add(tool);
    if (first.asked?.state !== undefined) {
      flows.push(toolFlow(tool));
      tried.push(`${tool.name} (asks for input)`);
    }
    let answers: unknown[] =
      first.exchange.outcome.kind === 'result' ? [first.exchange.outcome.result] : [];
    let sent: unknown[] = [call.params];
    if (first.asked !== undefined && first.asked.state === undefined) {
      // Input asked without a state: the server keeps it; drive it through to see what it mints.
      const driven = await callThrough(ctx, call, 'A', `${label}, driven through`);
      answers = driven.answers;
      sent = driven.sent;
    }
    if (first.reading !== 'refused')
      for (const found of harvestRounds(answers, sent))
        // The caller's own name is never a handle, however the server spells it back.
        if (ctx.identityOf(found.value) === undefined) offers.push({ found, minter: tool, canary });
    tried.push(`${tool.name} (${first.reading})`);
  }

  // 2. Every string parameter of every tool, offered the values others handed out, best fit first.
  const consumers = [...tools].sort(
    (a, b) => Number(refusedPlaceholder.has(b)) - Number(refusedPlaceholder.has(a)),
  );
  for (const tool of consumers) {
    const strict = refusedPlaceholder.has(tool);
    const ranked: { slot: Slot; offer: Offer; score: number }[] = [];
    for (const slot of slotsOf(tool.inputSchema)) {
      // A value the server minted never goes where it could become a command, a URL or a path.
      if (slot.path.some((name) => isRiskyParameter(name, slot.schema))) continue;
      for (const offer of offers) {
        if (offer.minter === tool) continue;
        const score = fitScore(slot, offer);
        if (score === undefined) continue;
        ranked.push({ slot, offer, score });
      }
    }
    ranked.sort((a, b) => b.score - a.score);
    // A tool that took placeholders (a lookup that answers "nothing there" as a success) is offered
    // values where the names hint at a handle, and else its best fit once, which counts only when
    // the answer is about the minted object (it shows what the minting call planted).
    const hinted = ranked.filter((r) => strict || r.score >= 4);
    const tries = (hinted.length > 0 ? hinted : ranked.slice(0, 1)).slice(0, TRIES_PER_CONSUMER);
    for (const { slot, offer, score } of tries) {
      const consumer = {
        kind: 'tool' as const,
        tool,
        path: slot.path,
        ...(slot.numeric === true ? { numeric: true as const } : {}),
      };
      const call = consumerCall(consumer, offer.found.value, makeCanary('survey'));
      const label = `survey: ${tool.name}.${slot.path.join('.')} offered ${offer.minter.name}'s value`;
      const first = await ask(ctx, call, 'A', label);
      if (spent(first.exchange)) return done();
      failed(`${tool.name}.${slot.path.join('.')}`, first.exchange);
      if (first.reading === 'refused' || first.reading === 'failure') continue;
      const weak = !strict && score < 4;
      if (weak && !(offer.canary !== undefined && shows(resultOf(first.exchange), offer.canary)))
        continue;
      const recipe: HandleRecipe = {
        minter: offer.minter,
        found: offer.found,
        consumer,
        checked: strict,
      };
      handles.push(recipe);
      if (first.asked?.state !== undefined) flows.push(toolFlow(tool, recipe));
      break;
    }
  }

  // 3. Resources: minted links, templates filled with minted values, listed resources.
  const links = offers.filter(
    (o) => o.found.kind === 'link' || /^[a-z][a-z0-9+.-]*:\/\//i.test(o.found.value),
  );
  const resourceTries: { offer?: Offer; call: Call; template?: string }[] = [];
  for (const offer of links.slice(0, MAX_RESOURCES)) {
    resourceTries.push({ offer, call: consumerCall({ kind: 'resource' }, offer.found.value, '') });
  }
  for (const template of ctx.protocol.resourceTemplates.slice(0, MAX_RESOURCES)) {
    const variable = /\{[+#./;?&]?([^}]*)\}/.exec(template)?.[1] ?? '';
    const best = offers
      .filter((o) => !o.found.value.includes('://'))
      .map((o) => ({ o, s: fitScore({ path: [variable], schema: {}, required: true }, o) ?? -1 }))
      .sort((a, b) => b.s - a.s)[0];
    if (best !== undefined)
      resourceTries.push({
        offer: best.o,
        template,
        call: consumerCall({ kind: 'resource', template }, best.o.found.value, ''),
      });
    else {
      const uri = fillTemplate(template, makeCanary('survey'));
      resourceTries.push({
        template,
        call: { method: 'resources/read', params: { uri }, subject: `resources/read ${uri}` },
      });
    }
  }
  for (const uri of ctx.protocol.resources.slice(0, MAX_RESOURCES)) {
    resourceTries.push({
      call: { method: 'resources/read', params: { uri }, subject: `resources/read ${uri}` },
    });
  }
  for (const t of resourceTries) {
    const first = await ask(ctx, t.call, 'A', `survey: ${t.call.subject}`);
    if (spent(first.exchange)) return done();
    failed(t.call.subject, first.exchange);
    tried.push(`${t.call.subject} (${first.reading})`);
    if (first.reading === 'refused' || first.reading === 'failure') continue;
    const recipe: HandleRecipe | undefined =
      t.offer === undefined
        ? undefined
        : {
            minter: t.offer.minter,
            found: t.offer.found,
            consumer: {
              kind: 'resource',
              ...(t.template === undefined ? {} : { template: t.template }),
            },
            checked: true,
          };
    if (recipe !== undefined) handles.push(recipe);
    if (first.asked?.state !== undefined) flows.push(resourceFlow(t.call, recipe));
  }

  // 4. Prompts.
  for (const prompt of ctx.protocol.prompts.slice(0, MAX_PROMPTS)) {
    const call = promptCall(prompt, makeCanary('survey'));
    const first = await ask(ctx, call, 'A', `survey: ${call.subject}`);
    if (spent(first.exchange)) return done();
    failed(call.subject, first.exchange);
    tried.push(`${call.subject} (${first.reading})`);
    if (first.asked?.state !== undefined) flows.push(promptFlow(prompt));
  }
  return done();

  function done(): SurfaceMap {
    if (handles.length === 0 && offers.length > 0)
      tried.push(
        `values offered: ${offers
          .slice(0, 8)
          .map((o) => `${o.minter.name}:${o.found.key ?? o.found.kind}`)
          .join(', ')}`,
      );
    tried.push(...handles.map((h) => `handle: ${recipeName(h)}`));
    return { handles, flows: orderFlows(flows), tried, failures };
  }
}

function requiredCount(t: ToolInfo): number {
  return objectShape(t.inputSchema).required.length;
}

/** Read-only flows first (the safest to drive to completion), then those that take a handle. */
function orderFlows(flows: FlowRecipe[]): FlowRecipe[] {
  const key = (f: FlowRecipe): number => (f.readOnly ? 0 : 100) + (f.needs ? 0 : 50);
  const sorted = [...flows].sort((a, b) => key(a) - key(b));
  // One recipe per request: the one that takes a minted handle reaches the real code path.
  return sorted.filter((f, i) => sorted.findIndex((g) => g.subject === f.subject) === i);
}

/** A tool that asks for input; `needs` is the handle it takes (its consumer is this tool). */
function toolFlow(tool: ToolInfo, needs?: HandleRecipe): FlowRecipe {
  return {
    subject: tool.name,
    tool,
    readOnly: tool.annotations?.['readOnlyHint'] === true,
    ...(needs === undefined ? {} : { needs }),
    build: (canary, handle) =>
      needs !== undefined && handle !== undefined
        ? consumerCall(needs.consumer, handle, canary)
        : toolCall(tool.name, argumentsFor(tool.inputSchema, { canary, boolean: false })),
  };
}

function resourceFlow(call: Call, needs?: HandleRecipe): FlowRecipe {
  return {
    subject: call.subject,
    readOnly: true,
    ...(needs === undefined ? {} : { needs }),
    build: (_canary, handle) =>
      needs !== undefined && handle !== undefined ? consumerCall(needs.consumer, handle, '') : call,
  };
}

function promptCall(prompt: PromptInfo, canary: string): Call {
  const args: Record<string, string> = {};
  for (const a of prompt.arguments) args[a.name] = canary;
  return {
    method: 'prompts/get',
    params: { name: prompt.name, arguments: args },
    subject: `prompt ${prompt.name}`,
  };
}

function promptFlow(prompt: PromptInfo): FlowRecipe {
  return {
    subject: `prompt ${prompt.name}`,
    readOnly: true,
    build: (canary) => promptCall(prompt, canary),
  };
}
