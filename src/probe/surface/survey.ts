/**
 * Discovery by value. A handle is a value one call mints and another call accepts back, whatever
 * either is named. The survey calls each safe tool twice as A with the same placeholder arguments
 * (the same canary): what differs between the two answers is what the call minted (`harvest.ts`),
 * wherever it sits. Those values are offered to every string or number parameter (at any depth) and
 * to `resources/read` (links, templates), best hint first; a consumer that refuses one minted value
 * at a time is offered one in every slot at once. A parameter that refused the placeholder and takes
 * the minted value is a handle slot; a request that answers `input_required` with a `requestState`
 * (a tool, a prompt, a resource) is a flow. Every callable tool is surveyed, ordered by what can mint
 * or consume; the survey's time cap bounds it, and the tools it did not reach are named, with why.
 */
import type { ProbeContext } from '../model/probe.js';
import {
  ask,
  callThrough,
  describe,
  drivenOnce,
  readOutcome,
  resultOf,
  toolCall,
  type Call,
  type Driven,
} from '../driver/rounds.js';
import { makeCanary, shows } from '../evidence/markers.js';
import {
  argumentsFor,
  isReferenceName,
  objectShape,
  pathKey,
  slotsOf,
  type Slot,
} from '../driver/schema.js';
import { callableTools } from '../plan/tool-risk.js';
import { wordsOf } from '../plan/words.js';
import type { Exchange, ProtocolInfo } from '../model/wire.js';
import type { PromptInfo, ToolInfo } from '../model/tools.js';
import { harvestMint } from './harvest.js';
import type { Found } from '../model/surface-map.js';
import { INTERNAL_ERROR, SURVEY_BUDGET_SPENT, SURVEY_CAP_PASSED } from '../model/surface-map.js';
import { byDefault, isRiskyParameter, judgeTool, type CallPermission } from '../plan/tool-risk.js';
import { choiceFill, choiceName, choicesFor } from './choices.js';
import type { Choice } from '../model/surface-map.js';
import { classifyReadable } from '../plan/classify.js';
import { readableGrant } from '../plan/call-plan.js';
import {
  consumerCall,
  fillTemplate,
  handOn,
  handOnPair,
  isReader,
  withdrawHanded,
  withdrawPair,
  recipeName,
  type FlowRecipe,
  type HandleRecipe,
  type Minter,
  type Reader,
  type SurfaceMap,
} from './recipes.js';

/** Most calls per tool the survey plans for (two mints, a few offers, rounds of a flow). */
const CALLS_PER_TOOL = 8;
const TRIES_PER_CONSUMER = 3;
const MAX_RESOURCES = 3;
const MAX_PROMPTS = 3;
/** Most slots of one consumer filled with minted values at once. */
const MAX_SLOTS = 4;

/**
 * The calls the survey may send on a surface: enough for every callable tool to be minted twice and
 * offered values, plus resources and prompts. In practice the survey's time cap bounds it first.
 */
export function surveyBudget(protocol: ProtocolInfo, permission: CallPermission): number {
  const callable = callableTools(protocol.tools, permission);
  // A tool whose schema offers other values may get that many calls more (`choices.ts`).
  const choices = callable.reduce((n, t) => n + choicesFor(t).length, 0);
  return Math.min(
    4000,
    // Each listed resource and prompt is read as A and again as B.
    24 + CALLS_PER_TOOL * callable.length + choices + 2 * MAX_RESOURCES * 3 + 2 * MAX_PROMPTS,
  );
}

/** Options of {@link survey}. */
export interface SurveyOptions {
  /** `performance.now()` after which the survey calls nothing more (its time cap, with a margin). */
  readonly stopAt?: number;
  /**
   * The values harvested so far in this scan: the survey offers them too, and adds what it
   * harvests, so a later pass can offer what an earlier one minted.
   */
  readonly offers?: Offer[];
  /**
   * A later pass (`scan.ts`): only these tools are called and offered values (the others, the
   * resources and the prompts were surveyed before).
   */
  readonly only?: (tool: ToolInfo) => boolean;
  /**
   * With {@link only}: tools not called for what they mint in this pass, but offered every value it
   * minted (the user's word's pass: a reader may take what only an unlocked tool mints), first.
   */
  readonly alsoConsumers?: readonly ToolInfo[];
}

/** A value harvested from the answers of a tool, a resource or a prompt. */
export interface Offer {
  readonly found: Found;
  readonly minter: Minter;
  /** The canary planted in the minting call: an answer that shows it is about the minted object. */
  readonly canary?: string;
  /** The minting call as A drove it, when a tool minted the value (see {@link handOnPair}). */
  readonly minting?: Driven;
}

// Words that say nothing about what a value is.
const GENERIC = new Set(
  'id ids the a an of to for get read by with new create open make value name string data text info'.split(
    ' ',
  ),
);
const nouns = (text: string): string[] =>
  wordsOf(text).filter((w) => w.length > 1 && !GENERIC.has(w));

/**
 * How well `offer` fits `slot`, or `undefined` when the schema rules it out. The score only orders
 * the offers (names, schema hints); whether a value is a handle is decided by the server taking it.
 */
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
  if (offer.found.kind !== 'prose') score += 1;
  // Minted by difference (two identical calls disagreed there): a fresh value, not a fixed word.
  if (offer.found.varying === true) score += 1;
  if (offer.found.kind === 'link' && !isUri) score -= 1;
  return score;
}

/** A minted value before a held one (see `harvest.ts`), then the better fit. */
const byRank = (a: { offer: Offer; score: number }, b: { offer: Offer; score: number }): number =>
  Number(b.offer.found.varying === true) - Number(a.offer.found.varying === true) ||
  b.score - a.score;

/**
 * The order tools are surveyed in: those that can mint or consume (any parameter, or not declared
 * read-only) first, fewest required parameters first; a read-only tool without parameters last.
 */
export function surveyOrder(tools: readonly ToolInfo[]): ToolInfo[] {
  const reportsOnly = (t: ToolInfo): number =>
    Number(slotsOf(t.inputSchema).length === 0 && t.annotations?.['readOnlyHint'] === true);
  // A tool only the user's word lets the scan call comes after every other (its class is neither
  // read nor create): whatever it changes, no other tool of the survey needs it afterwards.
  const unlocked = (t: ToolInfo): number => Number(!byDefault(t));
  return [...tools].sort(
    (a, b) =>
      unlocked(a) - unlocked(b) ||
      reportsOnly(a) - reportsOnly(b) ||
      requiredCount(a) - requiredCount(b),
  );
}

/** What one survey gathers as it goes; the phases below add to it. */
interface SurveyRun {
  readonly ctx: ProbeContext;
  readonly options: SurveyOptions;
  readonly handles: HandleRecipe[];
  readonly flows: FlowRecipe[];
  readonly tried: string[];
  readonly failures: string[];
  readonly notReached: { tool: string; why: string }[];
  readonly offers: Offer[];
  /** Tools that refused the placeholders: they are offered minted values first, and checked. */
  readonly refusedPlaceholder: Set<ToolInfo>;
  /** Tools whose placeholder call decided and asked for nothing: another value may open a flow. */
  readonly unopened: ToolInfo[];
  /**
   * What this survey handed on around a minted handle (a flow's round 1, a handle pair), until a
   * later call of a tool that may write or destroy carries that handle, or acts on everything.
   */
  readonly handedOn: HandedOn[];
}

/** A round or pair handed on around `value`, and how to take it back. */
interface HandedOn {
  readonly value: string;
  withdraw(): void;
}

/**
 * `ctx` with every call of a tool that may write or destroy (only the held-back pass makes any)
 * first withdrawing what the survey handed on around a handle the call carries, or everything
 * handed on when the tool takes no arguments (it acts on everything there is): a probe must never
 * take a round or a pair whose handle discovery itself may have consumed since.
 */
function guarded(ctx: ProbeContext, handedOn: HandedOn[]): ProbeContext {
  const request: ProbeContext['request'] = (method, params, options) => {
    const tool =
      method === 'tools/call'
        ? ctx.protocol.tools.find((t) => t.name === params['name'])
        : undefined;
    if (tool !== undefined && !byDefault(tool)) {
      const everything = takesNothing(tool);
      const args = JSON.stringify(params['arguments'] ?? {});
      for (let i = handedOn.length - 1; i >= 0; i--) {
        const h = handedOn[i] as HandedOn;
        if (!everything && !args.includes(JSON.stringify(h.value).slice(1, -1))) continue;
        h.withdraw();
        handedOn.splice(i, 1);
      }
    }
    return ctx.request(method, params, options);
  };
  return Object.create(ctx, { request: { value: request } }) as ProbeContext;
}

/** The tools of one pass: those surveyed, in order, and those called last (`lastly`). */
interface SurveyTools {
  readonly chosen: readonly ToolInfo[];
  readonly tools: readonly ToolInfo[];
  readonly lastly: readonly ToolInfo[];
}

/**
 * Notes a failure of `what`. A call the runner refused to send (a value the scan did not create,
 * offered to a tool that writes) was our choice, not the server's silence: it is no failure, only
 * a try not made.
 */
function failed(run: SurveyRun, what: string, e: Exchange): void {
  if (e.outcome.kind === 'failure' && e.outcome.failure === 'blocked') return;
  if (readOutcome(e.outcome) === 'failure') run.failures.push(`${what}: ${describe(e)}`);
}

/** Whether the survey's budget or deadline ran out on `e`. */
const spent = (e: Exchange): boolean =>
  e.outcome.kind === 'failure' && ['budget', 'deadline'].includes(e.outcome.failure);

/** Whether the survey's time cap has passed. */
const late = (run: SurveyRun): boolean =>
  run.options.stopAt !== undefined && performance.now() >= run.options.stopAt;

/** Names `tools` as not reached (`what` was not done to them), with why. */
function unreached(run: SurveyRun, tools: readonly ToolInfo[], what: string, e?: Exchange): void {
  const why =
    e?.outcome.kind === 'failure' && e.outcome.failure === 'budget'
      ? SURVEY_BUDGET_SPENT
      : SURVEY_CAP_PASSED;
  for (const t of tools)
    if (!run.notReached.some((n) => n.tool === t.name))
      run.notReached.push({ tool: t.name, why: `${what}: ${why}` });
}

/** A tool that takes no arguments: called with the user's word, it acts on everything there is. */
const takesNothing = (t: ToolInfo): boolean =>
  Object.keys(objectShape(t.inputSchema).props).length === 0;

/**
 * The tools of this pass in survey order. In a later pass (held-back tools), a tool that takes
 * nothing acts on everything there is (`deleteall`): it is called last, once, after every tool that
 * takes a value was offered one.
 */
function toolsOf(ctx: ProbeContext, only: SurveyOptions['only']): SurveyTools {
  const chosen = surveyOrder(
    callableTools(ctx.protocol.tools, ctx).filter((t) => only?.(t) ?? true),
  );
  const acting = (t: ToolInfo): boolean => only !== undefined && takesNothing(t);
  return { chosen, tools: chosen.filter((t) => !acting(t)), lastly: chosen.filter(acting) };
}

/**
 * 1. One tool twice, with the same placeholders: what it mints (what differs between the two
 * answers), and whether it refuses placeholders. False when the survey must stop.
 */
async function mintTool(
  run: SurveyRun,
  tool: ToolInfo,
  rest: readonly ToolInfo[],
): Promise<boolean> {
  const { ctx } = run;
  const canary = makeCanary('survey');
  const call = toolCall(tool.name, argumentsFor(tool.inputSchema, { canary, boolean: false }));
  const label = `survey: ${tool.name} with placeholder arguments`;
  const first = await ask(ctx, call, 'A', label);
  if (spent(first.exchange)) {
    unreached(run, rest, 'never called', first.exchange);
    return false;
  }
  failed(run, tool.name, first.exchange);
  // An internal error is no refusal of the arguments: the tool never ran (probe/run.ts reads it).
  const internal =
    first.exchange.outcome.kind === 'error' && first.exchange.outcome.code === -32603;
  run.tried.push(`${tool.name} (${internal ? INTERNAL_ERROR : first.reading})`);
  if (first.asked?.state === undefined && first.reading !== 'failure') run.unopened.push(tool);
  if (first.reading === 'refused') {
    run.refusedPlaceholder.add(tool);
    return true;
  }
  if (first.asked?.state !== undefined) {
    run.flows.push(handingOn(toolFlow(tool), first, canary));
    run.tried.push(`${tool.name} (asks for input)`);
    return true;
  }
  if (first.reading === 'failure') return true;
  // Input asked without a state: the server keeps it; drive it through to see what it mints.
  const minting =
    first.asked === undefined
      ? drivenOnce(call, first)
      : await callThrough(ctx, call, 'A', `${label}, driven through`);
  const { answers, sent } = minting;
  const again = await callThrough(ctx, call, 'A', `${label}, again (what differs was minted)`);
  if (spent(again.exchange)) {
    unreached(run, rest, 'not minted twice', again.exchange);
    return false;
  }
  failed(run, tool.name, again.exchange);
  for (const found of harvestMint(answers, again.answered ? again.answers : [], sent))
    // The caller's own name is never a handle, however the server spells it back.
    if (ctx.identityOf(found.value) === undefined)
      run.offers.push({ found, minter: tool, canary, minting });
  return true;
}

/** 1. Every safe tool twice, with the same placeholders. False when the survey must stop. */
async function mintTools(run: SurveyRun, tools: readonly ToolInfo[]): Promise<boolean> {
  for (const [i, tool] of tools.entries()) {
    if (late(run)) {
      unreached(run, tools.slice(i), 'never called');
      return false;
    }
    if (!(await mintTool(run, tool, tools.slice(i)))) return false;
  }
  return true;
}

/**
 * 1b. The other values a non-writing tool's schema offers (`priority: "urgent"`): a flow may open
 * behind one of them. False when the survey must stop.
 */
async function tryChoices(run: SurveyRun): Promise<boolean> {
  const { unopened } = run;
  for (const [i, tool] of unopened.entries()) {
    if (late(run)) {
      unreached(run, unopened.slice(i), 'not tried with its other values');
      return false;
    }
    const opened = await flowBehindChoice(run.ctx, tool);
    if (opened.spent !== undefined) {
      unreached(run, unopened.slice(i), 'not tried with its other values', opened.spent);
      return false;
    }
    for (const e of opened.exchanges) failed(run, tool.name, e);
    if (opened.flow !== undefined) {
      run.flows.push(opened.flow);
      run.tried.push(`${opened.flow.subject} (asks for input)`);
    }
  }
  return true;
}

/**
 * 1c. What the listed resources and the prompts hand out (a later pass surveyed them before): a
 * value in their text is offered to the tools that take one, like a tool's. False when the survey
 * must stop.
 */
async function harvestReaders(run: SurveyRun): Promise<boolean> {
  const { ctx } = run;
  for (const reader of run.options.only === undefined ? readersOf(ctx.protocol, ctx) : []) {
    if (late(run)) return false;
    const canary = makeCanary('survey');
    const call = reader.build(canary);
    const first = await ask(ctx, call, 'A', `survey: ${call.subject}`);
    if (spent(first.exchange)) return false;
    failed(run, call.subject, first.exchange);
    run.tried.push(`${call.subject} (${first.reading})`);
    if (first.asked?.state !== undefined) {
      run.flows.push(readerFlow(reader));
      continue;
    }
    if (first.reading !== 'accepted') continue;
    // The same request as B: what differs between the two answers is A's own (A's order, not the
    // shop's name), offered first; the rest of what the answer holds comes after.
    const other = await ask(ctx, call, 'B', `survey: ${call.subject} as B (what differs is A's)`);
    if (spent(other.exchange)) return false;
    failed(run, `${call.subject} as B`, other.exchange);
    const theirs = other.reading === 'accepted' ? [resultOf(other.exchange)] : [];
    for (const found of harvestMint([resultOf(first.exchange)], theirs, [call.params]))
      if (ctx.identityOf(found.value) === undefined)
        run.offers.push({
          found,
          minter: reader,
          ...(reader.kind === 'prompt' ? { canary } : {}),
        });
  }
  return true;
}

/** A consumer's offers, best first: every safe slot against every offer the schema allows. */
interface Ranked {
  readonly slot: Slot;
  readonly offer: Offer;
  readonly score: number;
}

/** `tool`'s slots against the offers, ranked; an `earlier` tool takes only this pass's minters'. */
function rankOffers(
  run: SurveyRun,
  tool: ToolInfo,
  earlier: boolean,
  minters: ReadonlySet<Minter>,
): Ranked[] {
  const ranked: Ranked[] = [];
  for (const slot of slotsOf(tool.inputSchema)) {
    // A value the server minted never goes where it could become a command, a URL or a path.
    if (slot.path.some((name) => isRiskyParameter(name, slot.schema))) continue;
    for (const offer of run.offers) {
      if (!mayOffer(offer, tool)) continue;
      if (earlier && !minters.has(offer.minter)) continue;
      const score = fitScore(slot, offer);
      if (score === undefined) continue;
      ranked.push({ slot, offer, score });
    }
  }
  return ranked.sort(byRank);
}

/** How offering values to one consumer ended: taken, not taken, or the survey must stop. */
type Offered = 'taken' | 'not taken' | 'stop';

/**
 * 2. `tries`, one minted value at a time: the first one `tool` takes is a handle recipe.
 * `rest` is the consumers not yet done, named if the survey must stop.
 */
async function offerOneByOne(
  run: SurveyRun,
  tool: ToolInfo,
  tries: readonly Ranked[],
  rest: readonly ToolInfo[],
): Promise<Offered> {
  const strict = run.refusedPlaceholder.has(tool);
  for (const { slot, offer, score } of tries) {
    const consumer = {
      kind: 'tool' as const,
      tool,
      path: slot.path,
      ...(slot.numeric === true ? { numeric: true as const } : {}),
    };
    const call = consumerCall(consumer, offer.found.value, makeCanary('survey'));
    const label = `survey: ${tool.name}.${slot.path.join('.')} offered ${offer.minter.name}'s value`;
    const first = await ask(run.ctx, call, 'A', label);
    if (spent(first.exchange)) {
      unreached(run, rest, 'not offered minted values', first.exchange);
      return 'stop';
    }
    failed(run, `${tool.name}.${slot.path.join('.')}`, first.exchange);
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
    run.handles.push(recipe);
    const value = offer.found.value;
    if (offer.minting !== undefined && offer.canary !== undefined && first.asked === undefined) {
      const minted = { driven: offer.minting, canary: offer.canary, handle: value };
      handOnPair(recipe, { minted, read: drivenOnce(call, first) });
      run.handedOn.push({ value, withdraw: () => withdrawPair(recipe) });
    }
    if (first.asked?.state !== undefined) {
      const flow = handingOn(toolFlow(tool, recipe), first, offer.canary, value);
      run.flows.push(flow);
      run.handedOn.push({ value, withdraw: () => withdrawHanded(flow) });
    }
    return 'taken';
  }
  return 'not taken';
}

/**
 * 2. A strict `tool` that refused one minted value at a time may take several
 * (`add_to_segment(contactId, segmentId)`): every slot gets its best minted value at once, a
 * different value each. False when the survey must stop.
 */
async function offerTogether(
  run: SurveyRun,
  tool: ToolInfo,
  hinted: readonly Ranked[],
  rest: readonly ToolInfo[],
): Promise<boolean> {
  // Only a tool that refused the placeholders gets here: its recipes are checked.
  const checked = true;
  const slots = fillSlots(hinted);
  if (slots.length < 2) return true;
  const [lead, ...others] = slots as [Filled, ...Filled[]];
  const together = recipeFor(tool, lead, others, checked);
  const call = consumerCall(
    together.consumer,
    lead.offer.found.value,
    makeCanary('survey'),
    others.map((f) => f.offer.found.value),
  );
  const label = `survey: ${tool.name} offered minted values in ${slots.map((f) => f.slot.path.join('.')).join(', ')}`;
  const first = await ask(run.ctx, call, 'A', label);
  if (spent(first.exchange)) {
    unreached(run, rest, 'not offered minted values', first.exchange);
    return false;
  }
  failed(run, tool.name, first.exchange);
  if (first.reading === 'refused' || first.reading === 'failure') return true;
  // One recipe per slot: that slot under test, the others filled with the caller's own values.
  const perSlot = slots.map((f, k) =>
    recipeFor(
      tool,
      f,
      slots.filter((_, j) => j !== k),
      checked,
    ),
  );
  run.handles.push(...perSlot);
  if (first.asked?.state !== undefined) run.flows.push(toolFlow(tool, perSlot[0]));
  return true;
}

/**
 * 2. Every string parameter of every tool, offered the values others handed out, best fit first;
 * in a later pass, the tools surveyed before come first, offered only what this pass minted
 * (before an unlocked consumer may act on it). False when the survey must stop.
 */
async function offerMinted(run: SurveyRun, pass: SurveyTools): Promise<boolean> {
  const { tools } = pass;
  const earlier = (run.options.alsoConsumers ?? []).filter((t) => !tools.includes(t));
  const minters = new Set<Minter>(pass.chosen);
  const refused = run.refusedPlaceholder;
  const consumers = [
    ...earlier,
    ...[...tools].sort((a, b) => Number(refused.has(b)) - Number(refused.has(a))),
  ];
  for (const [i, tool] of consumers.entries()) {
    const rest = consumers.slice(i);
    if (late(run)) {
      unreached(run, rest, 'not offered minted values');
      return false;
    }
    const strict = refused.has(tool);
    const ranked = rankOffers(run, tool, earlier.includes(tool), minters);
    // A tool that took placeholders (a lookup that answers "nothing there" as a success) is offered
    // values where the names hint at a handle, and else its best fit once, which counts only when
    // the answer is about the minted object (it shows what the minting call planted).
    const hinted = ranked.filter((r) => strict || r.score >= 4);
    const tries = (hinted.length > 0 ? hinted : ranked.slice(0, 1)).slice(0, TRIES_PER_CONSUMER);
    const offered = await offerOneByOne(run, tool, tries, rest);
    if (offered === 'stop') return false;
    if (offered === 'taken' || !strict) continue;
    if (!(await offerTogether(run, tool, hinted, rest))) return false;
  }
  return true;
}

/** One `resources/read` to try: a minted link, or a template filled (with a minted value). */
interface ResourceTry {
  readonly offer?: Offer;
  readonly call: Call;
  readonly template?: string;
}

/**
 * 3. The resource reads to try: minted links, and templates filled with minted values (in a later
 * pass, what it minted: what was minted before was offered before).
 */
function resourceTries(run: SurveyRun, minters: ReadonlySet<Minter>): ResourceTry[] {
  const { offers } = run;
  const only = run.options.only;
  const fresh = only === undefined ? offers : offers.filter((o) => minters.has(o.minter));
  const links = fresh.filter(
    (o) => o.found.kind === 'link' || /^[a-z][a-z0-9+.-]*:\/\//i.test(o.found.value),
  );
  const tries: ResourceTry[] = [];
  for (const offer of links.slice(0, MAX_RESOURCES)) {
    tries.push({ offer, call: consumerCall({ kind: 'resource' }, offer.found.value, '') });
  }
  for (const template of run.ctx.protocol.resourceTemplates.slice(0, MAX_RESOURCES)) {
    const variable = /\{[+#./;?&]?([^}]*)\}/.exec(template)?.[1] ?? '';
    const best = fresh
      .filter((o) => !o.found.value.includes('://'))
      .map((offer) => ({
        offer,
        score: fitScore({ path: [variable], schema: {}, required: true }, offer) ?? -1,
      }))
      .sort(byRank)[0];
    if (best !== undefined)
      tries.push({
        offer: best.offer,
        template,
        call: consumerCall({ kind: 'resource', template }, best.offer.found.value, ''),
      });
    else if (only === undefined) {
      const uri = fillTemplate(template, makeCanary('survey'));
      tries.push({
        template,
        call: { method: 'resources/read', params: { uri }, subject: `resources/read ${uri}` },
      });
    }
  }
  return tries;
}

/** 3. Resources: each try read as A; one that answers is a handle recipe. False: stop. */
async function readResources(run: SurveyRun, tries: readonly ResourceTry[]): Promise<boolean> {
  for (const t of tries) {
    if (late(run)) return false;
    const first = await ask(run.ctx, t.call, 'A', `survey: ${t.call.subject}`);
    if (spent(first.exchange)) return false;
    failed(run, t.call.subject, first.exchange);
    run.tried.push(`${t.call.subject} (${first.reading})`);
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
    if (recipe !== undefined) run.handles.push(recipe);
    if (first.asked?.state !== undefined) run.flows.push(resourceFlow(t.call, recipe));
  }
  return true;
}

/**
 * 4. A later pass: a tool that takes nothing acts on everything there is (`deleteall`): called
 * last, once, after every tool and resource that takes a value was offered one.
 */
async function callLast(run: SurveyRun, lastly: readonly ToolInfo[]): Promise<void> {
  for (const [i, tool] of lastly.entries()) {
    if (late(run)) {
      unreached(run, lastly.slice(i), 'never called');
      return;
    }
    const call = toolCall(
      tool.name,
      argumentsFor(tool.inputSchema, { canary: '', boolean: false }),
    );
    const first = await ask(run.ctx, call, 'A', `survey: ${tool.name}, last (it takes nothing)`);
    if (spent(first.exchange)) {
      unreached(run, lastly.slice(i), 'never called', first.exchange);
      return;
    }
    failed(run, tool.name, first.exchange);
    run.tried.push(`${tool.name} (${first.reading})`);
    if (first.asked?.state !== undefined) run.flows.push(toolFlow(tool));
  }
}

/** The surface map of what the survey found, with what it tried and did not reach. */
function surveyed(run: SurveyRun): SurfaceMap {
  const { handles, offers, tried, notReached } = run;
  if (handles.length === 0 && offers.length > 0)
    tried.push(
      `values offered: ${offers
        .slice(0, 8)
        .map((o) => `${o.minter.name}:${o.found.key ?? o.found.kind}`)
        .join(', ')}`,
    );
  tried.push(...handles.map((h) => `handle: ${recipeName(h)}`));
  // Said in words a skip's reason can quote whole: the count, why, and the flag that helps.
  if (notReached.length > 0)
    tried.push(
      notReached.some((n) => n.why.endsWith(SURVEY_CAP_PASSED))
        ? `not reached: ${notReached.length} tool(s), the survey's time cap passed first (raise --deadline to reach them)`
        : `not reached: ${notReached.length} tool(s), the survey's call budget was spent first`,
    );
  return {
    handles,
    flows: orderFlows(run.flows),
    tried,
    failures: run.failures,
    ...(notReached.length > 0 ? { notReached } : {}),
  };
}

/** Runs the survey as identity A: its phases in order, each stopping it when time or budget ran out. */
export async function survey(ctx: ProbeContext, options: SurveyOptions = {}): Promise<SurfaceMap> {
  const handedOn: HandedOn[] = [];
  const run: SurveyRun = {
    ctx: guarded(ctx, handedOn),
    options,
    handles: [],
    flows: [],
    tried: [],
    failures: [],
    notReached: [],
    offers: options.offers ?? [],
    refusedPlaceholder: new Set(),
    unopened: [],
    handedOn,
  };
  const pass = toolsOf(ctx, options.only);
  const minters = new Set<Minter>(pass.chosen);
  const carriedOn =
    (await mintTools(run, pass.tools)) &&
    (await tryChoices(run)) &&
    (await harvestReaders(run)) &&
    (await offerMinted(run, pass)) &&
    (await readResources(run, resourceTries(run, minters)));
  if (carriedOn) await callLast(run, pass.lastly);
  return surveyed(run);
}

/** A slot of a consumer and the minted value chosen for it. */
interface Filled {
  readonly slot: Slot;
  readonly offer: Offer;
}

/**
 * Each slot's best offer (in `ranked` order), a different value and a different minting position
 * for each slot, at most {@link MAX_SLOTS}: the values a consumer of several handles is offered at
 * once.
 */
export function fillSlots(ranked: readonly { slot: Slot; offer: Offer }[]): Filled[] {
  const out: Filled[] = [];
  for (const r of ranked) {
    if (out.length >= MAX_SLOTS) break;
    const key = pathKey(r.slot.path);
    if (
      out.some((f) => pathKey(f.slot.path) === key || f.offer.found.value === r.offer.found.value)
    )
      continue;
    if (
      out.some(
        (f) => f.offer.minter === r.offer.minter && f.offer.found.where === r.offer.found.where,
      )
    )
      continue;
    out.push(r);
  }
  return out;
}

/** The recipe that tests `lead`'s slot of `tool`, the other filled slots taking their own values. */
function recipeFor(
  tool: ToolInfo,
  lead: Filled,
  others: readonly Filled[],
  checked: boolean,
): HandleRecipe {
  return {
    minter: lead.offer.minter,
    found: lead.offer.found,
    consumer: {
      kind: 'tool',
      tool,
      path: lead.slot.path,
      ...(lead.slot.numeric === true ? { numeric: true as const } : {}),
      ...(others.length === 0
        ? {}
        : {
            others: others.map((o) => ({
              path: o.slot.path,
              ...(o.slot.numeric === true ? { numeric: true as const } : {}),
              minter: o.offer.minter,
              found: o.offer.found,
            })),
          }),
    },
    checked,
  };
}

function requiredCount(t: ToolInfo): number {
  return objectShape(t.inputSchema).required.length;
}

/** Read-only flows first (the safest to drive to completion), then those that take a handle. */
function orderFlows(flows: FlowRecipe[]): FlowRecipe[] {
  // A flow behind another value comes after those the placeholder call opened.
  const key = (f: FlowRecipe): number =>
    (f.readOnly ? 0 : 100) + (f.needs ? 0 : 50) + (f.choice ? 25 : 0);
  const sorted = [...flows].sort((a, b) => key(a) - key(b));
  // One recipe per request: the one that takes a minted handle reaches the real code path.
  return sorted.filter((f, i) => sorted.findIndex((g) => g.subject === f.subject) === i);
}

/**
 * A tool that asks for input; `needs` is the handle it takes (its consumer is this tool), `choice`
 * the argument value other than the placeholder's that opened it, sent on every call built.
 */
function toolFlow(tool: ToolInfo, needs?: HandleRecipe, choice?: Choice): FlowRecipe {
  const fill = choiceFill(choice);
  return {
    subject: choice === undefined ? tool.name : `${tool.name} with ${choiceName(choice)}`,
    tool,
    readOnly: tool.annotations?.['readOnlyHint'] === true,
    ...(needs === undefined ? {} : { needs }),
    ...(choice === undefined ? {} : { choice }),
    build: (canary, handle, co) =>
      needs !== undefined && handle !== undefined
        ? consumerCall(needs.consumer, handle, canary, co)
        : toolCall(tool.name, argumentsFor(tool.inputSchema, { canary, boolean: false }, fill)),
  };
}

/**
 * `flow`, its round 1 (`first`, asked as A around `canary` and `handle`) handed on to the first
 * probe that asks it ({@link handOn}): its state was never sent.
 */
function handingOn(
  flow: FlowRecipe,
  first: Awaited<ReturnType<typeof ask>>,
  canary: string | undefined,
  handle?: string,
): FlowRecipe {
  const { asked } = first;
  if (asked?.state === undefined || canary === undefined) return flow;
  handOn(flow, {
    call: asked.call,
    canary,
    ...(handle === undefined ? {} : { handle }),
    identity: 'A',
    exchange: first.exchange,
    asked: { ...asked, state: asked.state },
  });
  return flow;
}

/** What trying a tool's other values found: a flow, and every exchange sent. */
interface ChoiceTrial {
  readonly flow?: FlowRecipe;
  readonly exchanges: Exchange[];
  /** The call budget or the deadline ran out on this exchange. */
  readonly spent?: Exchange;
}

/**
 * One change at a time against the placeholder call: `tool` called with one other value its schema
 * offers ({@link choicesFor}: never for a tool that may write, at most a few), until one opens a
 * flow. The flow's recipe carries that value, so every probe sends it again.
 */
async function flowBehindChoice(ctx: ProbeContext, tool: ToolInfo): Promise<ChoiceTrial> {
  const exchanges: Exchange[] = [];
  for (const choice of choicesFor(tool)) {
    const canary = makeCanary('survey');
    const args = argumentsFor(tool.inputSchema, { canary, boolean: false }, choiceFill(choice));
    const label = `survey: ${tool.name} with ${choiceName(choice)} (one other value)`;
    const first = await ask(ctx, toolCall(tool.name, args), 'A', label);
    const e = first.exchange;
    if (e.outcome.kind === 'failure' && ['budget', 'deadline'].includes(e.outcome.failure))
      return { exchanges, spent: e };
    exchanges.push(e);
    if (first.asked?.state !== undefined)
      return { flow: handingOn(toolFlow(tool, undefined, choice), first, canary), exchanges };
  }
  return { exchanges };
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

/**
 * The listed resources and the prompts, each a request that may hand values out (at most
 * {@link MAX_RESOURCES} and {@link MAX_PROMPTS}).
 */
function readersOf(protocol: ProtocolInfo, permission: CallPermission): Reader[] {
  const resources = protocol.resources.slice(0, MAX_RESOURCES).map((uri): Reader => ({
    kind: 'resource',
    name: `resources/read ${uri}`,
    build: () => ({ method: 'resources/read', params: { uri }, subject: `resources/read ${uri}` }),
  }));
  // A prompt whose name says it acts is left alone like a tool, unless the user said everything.
  const callable = protocol.prompts.filter(
    (p) =>
      permission.includeDestructive ||
      readableGrant(classifyReadable(p.name, undefined, 'prompts/get').class, permission) !==
        undefined,
  );
  const prompts = callable.slice(0, MAX_PROMPTS).map((prompt): Reader => ({
    kind: 'prompt',
    name: `prompt ${prompt.name}`,
    build: (canary) => promptCall(prompt, canary),
  }));
  return [...resources, ...prompts];
}

/** A resource or a prompt that asks for input. */
function readerFlow(reader: Reader): FlowRecipe {
  return { subject: reader.name, readOnly: true, build: (canary) => reader.build(canary) };
}

/**
 * Whether `offer` may be offered to `tool`: never its own value back, and a value a resource or a
 * prompt handed out (there before the scan, not created by it) only to a tool that does not write;
 * the runner refuses such a call anyway (`tool-risk.ts`, `MintedValues`).
 */
function mayOffer(offer: Offer, tool: ToolInfo): boolean {
  if (offer.minter === tool) return false;
  // A value a resource or a prompt handed out is somebody's: only a tool that only reads takes it.
  return !(isReader(offer.minter) && judgeTool(tool).writes);
}
