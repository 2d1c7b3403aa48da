/**
 * The handle probe's trial: given a handle A minted through a discovered recipe, find out whether
 * its consumer hands A's object to B, and whether the instrument was live while it asked. The
 * controls are what keep a "yes" from reading as a finding: both identities live, a forged handle
 * decided, and the server shown to tell A and B apart (A-only tokens in A's answers, or B refused
 * what A gets). Every read is driven through all its rounds, and judged on all of them.
 *
 * B's answer on A's handle is judged by experiment: it is lined up (`positions.ts`) against B's
 * answer on a forged handle and on its own handle, sent with the same canary and B's own values in
 * any other slot, the handles themselves blanked where the answers quote them. What differs is the
 * handle's doing; it is reported, and an answer on A's handle that is the forged handle's answer
 * opened nothing. A's canary or principal confirms when B's answer on A's handle shows it and B sees
 * it nowhere without A's handle. Where the handle itself carries what came back (a handle that
 * encodes its record), one more experiment decides: B presents A's handle with that value swapped
 * for a control canary. A server that shows the control back only repeats what the handle says; one
 * that refuses the edited handle, or answers it without the control, served A's record to B.
 */
import { randomInt } from 'node:crypto';
import {
  confirmed,
  errored,
  refuted,
  skipped,
  type ProbeContext,
  type ProbeDecision,
} from '../model/probe.js';
import {
  consumerCall,
  consumerName,
  mint,
  othersOf,
  type CoSlot,
  type HandleRecipe,
  type Minted,
} from '../surface/recipes.js';
import { callThrough, describe, type Driven } from '../driver/rounds.js';
import {
  distinctTokens,
  makeCanary,
  markersOf,
  markersShown,
  shows,
  type Marker,
} from '../evidence/markers.js';
import { stringCarries } from '../evidence/encodings.js';
import { differences, leavesOf, type Difference } from '../evidence/positions.js';
import { decodeBlob, encodeBlob, randomSameShape } from './mutate.js';
import { check, outOfBudget, startTrial, type Trial } from './trial.js';
import type { ControlResult } from '../model/probe.js';
import type { IdentityName } from '../model/target.js';

const how = (d: Driven): string => (d.answered ? 'answered' : describe(d.exchange));

/** `answers` with each of `handles` blanked wherever it is quoted (the handle sent is no finding). */
function blanked(answers: unknown, handles: readonly string[]): unknown {
  let text = JSON.stringify(answers);
  for (const h of handles) {
    const quoted = JSON.stringify(h).slice(1, -1);
    if (quoted.length === 0) continue;
    // Whole only: a short numeric handle (`7`) is no part of every number and canary that holds it.
    const escaped = quoted.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    text = text.replace(new RegExp(`(?<![A-Za-z0-9])${escaped}(?![A-Za-z0-9])`, 'g'), '\u2026');
  }
  return JSON.parse(text) as unknown;
}

/** Where B's answer on A's handle differs from B's answer on `other`, the handles blanked. */
export function handleDifference(
  cross: readonly unknown[],
  other: readonly unknown[],
  handles: readonly string[],
): Difference[] {
  // Keyed by round (`r0.content.0.text`), so a path reads as where it is.
  const rounds = (answers: readonly unknown[]): unknown =>
    blanked(Object.fromEntries(answers.map((a, i) => [`r${i}`, a])), handles);
  return differences(leavesOf(rounds(other)), leavesOf(rounds(cross)), undefined, 64);
}

/**
 * `handle` with `from` swapped for `to` wherever it carries it: verbatim, or inside the JSON that
 * the handle (or its tail after a prefix such as `ws-` or `doc:`) decodes to, an unkeyed digest
 * recomputed and any signature as issued; `undefined` when it carries `from` in no form this can
 * rebuild.
 */
export function swapCarried(handle: string, from: string, to: string): string | undefined {
  if (from.length === 0) return undefined;
  if (handle.includes(from)) return handle.split(from).join(to);
  const quoted = JSON.stringify(from).slice(1, -1);
  const into = JSON.stringify(to).slice(1, -1);
  // Where an encoded body may start: the beginning, or just after a separator (at most 16 tries).
  const starts = [0];
  for (let i = 1; i < handle.length && starts.length < 16; i++)
    if (/[^A-Za-z0-9]/.test(handle[i - 1] ?? '')) starts.push(i);
  for (const at of starts) {
    const decoded = decodeBlob(handle.slice(at));
    if (decoded === undefined) continue;
    const text = JSON.stringify(decoded.value);
    if (!text.includes(quoted)) continue;
    const swapped = JSON.parse(text.split(quoted).join(into)) as Parameters<typeof encodeBlob>[1];
    const body = encodeBlob(decoded, swapped);
    return body === undefined ? undefined : handle.slice(0, at) + body;
  }
  return undefined;
}

/**
 * One slot of a consumer presented cross-principal: the recipe with that slot under test (the others
 * filled in their order), A's value for it, B's own value for it and B's values for the others.
 */
interface Slot {
  readonly recipe: HandleRecipe;
  readonly where: string;
  /** Appended to the labels of its presentations (empty for the first slot). */
  readonly suffix: string;
  readonly a: string;
  readonly b: string;
  readonly bCo: readonly string[] | undefined;
}

/**
 * Every slot of `recipe`'s consumer, the recipe's own first: for a consumer of several minted
 * values, slot k is under test with A's value in it and B's own values in the others.
 */
function slotsOf(
  recipe: HandleRecipe,
  [a, , b]: readonly [Minted & { handle: string }, Minted, Minted],
): Slot[] {
  const first: Slot = {
    recipe,
    where: consumerName(recipe.consumer),
    suffix: '',
    a: a.handle,
    b: b.handle ?? '',
    bCo: b.co,
  };
  const c = recipe.consumer;
  if (c.kind !== 'tool' || c.others === undefined || c.others.length === 0) return [first];
  const lead: CoSlot = {
    path: c.path,
    ...(c.numeric === true ? { numeric: true as const } : {}),
    minter: recipe.minter,
    found: recipe.found,
  };
  const all = [lead, ...c.others];
  const valuesOf = (m: Minted): readonly string[] => [m.handle ?? '', ...(m.co ?? [])];
  const [av, bv] = [valuesOf(a), valuesOf(b)];
  const out = [first];
  for (let k = 1; k < all.length; k++) {
    const under = all[k] as CoSlot;
    const others = all.filter((_, j) => j !== k);
    const r: HandleRecipe = {
      minter: under.minter,
      found: under.found,
      consumer: {
        ...c,
        path: under.path,
        ...(under.numeric === true ? { numeric: true as const } : { numeric: undefined }),
        others,
      },
      checked: recipe.checked,
    };
    const where = consumerName(r.consumer);
    out.push({
      recipe: r,
      where,
      suffix: ` (slot ${under.path.join('.')})`,
      a: av[k] ?? '',
      b: bv[k] ?? '',
      bCo: bv.filter((_, j) => j !== k),
    });
  }
  return out;
}

/** How the swapped-handle control came out; see {@link tryHandlePair}. */
type Swap =
  | { readonly reading: 'reflected' | 'served'; readonly detail: string }
  | { readonly reading: 'undecided'; readonly detail: string };

const shown = (d: readonly Difference[]): string =>
  d
    .slice(0, 3)
    .map(
      (x) => `${x.path}: ${JSON.stringify(x.before ?? null)} → ${JSON.stringify(x.after ?? null)}`,
    )
    .join('; ');

/** Reads `handle` through a consumer (the recipe's own unless `to`), as `who`. */
type Read = (
  handle: string,
  who: IdentityName,
  label: string,
  co: readonly string[] | undefined,
  canary?: string,
  to?: HandleRecipe,
) => Promise<Driven>;

/** A minted handle, known to be there. */
type MintedHandle = Minted & { handle: string };

/** What one recipe's trial holds once A and B have minted and read their own handles. */
interface HandlePair {
  readonly ctx: ProbeContext;
  readonly trial: Trial;
  readonly read: Read;
  /** B's reads share one canary, so its answers differ only by the handle presented. */
  readonly canaryB: string;
  readonly mintA: MintedHandle;
  readonly mintA2: MintedHandle;
  readonly mintB: MintedHandle;
  readonly readA: Driven;
  readonly readB: Driven;
  readonly readA2: Driven;
}

/** A slot's decision, with the controls as they stood when it was reached. */
interface Judged {
  readonly slot: Slot;
  readonly decision: Trial['decision'];
  readonly controls: Map<string, ControlResult>;
}

/**
 * B, then A again, mint (A, B, A: interleaved in time, so a clock or counter in the answers is the
 * same for both A's); a decision when either could not.
 */
async function mintAgain(
  ctx: ProbeContext,
  trial: Trial,
  recipe: HandleRecipe,
): Promise<{ readonly mintB: MintedHandle; readonly mintA2: MintedHandle } | ProbeDecision> {
  const otherSlots = othersOf(recipe);
  const mintB = await mint(ctx, recipe, 'B', 'B mints its own');
  const mintA2 = await mint(ctx, recipe, 'A', 'A mints a second');
  if ([mintB, mintA2].some((m) => outOfBudget(trial, m.driven.exchange)))
    return errored('budget spent while minting');
  const incomplete = (m: Minted): boolean =>
    m.handle === undefined || (otherSlots.length > 0 && m.co === undefined);
  if (incomplete(mintB) || incomplete(mintA2)) {
    check(
      trial,
      'bMintsOwnHandle',
      false,
      'B (and A again) can mint a handle',
      `${how(mintB.driven)} / ${how(mintA2.driven)}${otherSlots.length > 0 ? ` (and ${otherSlots.length} other slot(s) each)` : ''}`,
    );
    // A mint that drew no decision says nothing of B's liveness: it says what stopped it.
    const stopped = [mintB, mintA2].find((m) => m.driven.exchange.outcome.kind === 'failure');
    if (stopped !== undefined)
      return errored(
        `${stopped === mintB ? 'B' : 'A'} could not mint: ${describe(stopped.driven.exchange)}`,
      );
    return errored('B could not mint a handle of its own, so B is not a live second identity');
  }
  return { mintB: mintB as MintedHandle, mintA2: mintA2 as MintedHandle };
}

/** B presents a forged handle in `slot`: the control; a decision when it drew none. */
async function presentForged(
  pair: HandlePair,
  slot: Slot,
): Promise<{ readonly forgedHandle: string; readonly forged: Driven } | ProbeDecision> {
  const { trial } = pair;
  // A numeric id counted up from 1 would, forged at the same length, often be somebody's real one:
  // a forgery must be a value the server never minted, so a number goes far out of that range.
  const forgedHandle =
    slot.recipe.found.numeric === true
      ? String(100_000_000 + randomInt(900_000_000))
      : randomSameShape(slot.b);
  const forged = await pair.read(
    forgedHandle,
    'B',
    `B presents a forged handle of the same shape${slot.suffix}`,
    slot.bCo,
    pair.canaryB,
    slot.recipe,
  );
  const forgedDecided = forged.answered || forged.reading === 'refused';
  check(
    trial,
    'forgedHandleDecided',
    forgedDecided,
    'a decision on a handle the server never minted (refused, or else noted)',
    how(forged),
  );
  if (!forgedDecided) return errored('the forged-handle control drew no decision');
  if (forged.answered) {
    trial.observations.push({
      label: 'no handle validation',
      detail: `${slot.where} honoured a handle it never minted, so a "yes" to B proves nothing; only A's canary or principal can confirm`,
    });
  }
  return { forgedHandle, forged };
}

/** What of A's showed in B's answer on A's handle, after the swap decided what the handle carries. */
interface Attribution {
  readonly aTokens: readonly string[];
  /** A's markers in B's answer on A's handle. */
  readonly counted: readonly Marker[];
  /** Of those, the ones B's answers without A's handle never show. */
  readonly unseen: readonly Marker[];
  readonly swap: Swap | undefined;
  /** Of those, the ones the server looked up rather than repeated from the handle. */
  readonly attributed: readonly Marker[];
}

/** Which of A's markers B's answer on A's handle shows that B sees no other way. */
async function attribute(
  pair: HandlePair,
  slot: Slot,
  cross: Driven,
  forged: { readonly forgedHandle: string; readonly forged: Driven },
): Promise<Attribution> {
  const { mintA, mintA2, mintB, readA, readA2, readB, canaryB } = pair;
  const handles = [mintA.handle, mintA2.handle, mintB.handle, forged.forgedHandle];
  const coValues = [mintA, mintA2, mintB].flatMap((m) => m.co ?? []);
  const exclude = [...handles, ...coValues, mintA.canary, mintA2.canary, mintB.canary, canaryB];
  const answersOf = (m: Minted): unknown[] => [
    ...m.driven.answers,
    ...(m.also ?? []).flatMap((d) => d.answers),
  ];
  // What B sees without A's handle: its own records, and what a forged handle opens.
  const bSees = [...answersOf(mintB), ...readB.answers, ...forged.forged.answers];
  const aTokens = distinctTokens(
    [
      [...answersOf(mintA), ...readA.answers],
      [...answersOf(mintA2), ...readA2.answers],
    ],
    [bSees],
    exclude,
  );
  // Every round B was answered counts: an owner named only at completion, a canary quoted early.
  // A handle that spells its record shows it by being quoted back: the swap below decides that.
  const markers = markersOf(mintA.canary, aTokens);
  const counted = markersShown(cross.answers, markers);
  const seen = new Set(markersShown(bSees, counted));
  const unseen = counted.filter((m) => !seen.has(m));
  // What A's handle itself carries (a handle spelling its record) is decided by the swap.
  const carried = unseen.filter((m) => stringCarries(slot.a, m.value));
  const swap =
    carried.length > 0
      ? await swapControl(pair.ctx, slot.recipe, slot.a, carried, slot.bCo, canaryB)
      : undefined;
  if (swap !== undefined)
    pair.trial.observations.push({ label: `swapped handle: ${swap.reading}`, detail: swap.detail });
  const attributed =
    swap === undefined || swap.reading === 'served'
      ? unseen
      : unseen.filter((m) => !carried.includes(m));
  return { aTokens, counted, unseen, swap, attributed };
}

/** The experiment: B's answer on A's handle against its answer on a forged handle and on its own. */
function noteAgainstControls(
  pair: HandlePair,
  cross: Driven,
  forged: Driven,
  presented: readonly string[],
): void {
  if (!cross.answered) return;
  const vsForged = handleDifference(cross.answers, forged.answers, presented);
  const vsOwn = handleDifference(cross.answers, pair.readB.answers, presented);
  pair.trial.observations.push(
    vsForged.length === 0
      ? {
          label: 'answered as a forged handle',
          detail: `B's answer on A's handle is its answer on a handle never minted (the handles aside): A's handle opened nothing a forgery does not`,
        }
      : {
          label: 'differs from a forged handle',
          detail: `B's answer on A's handle against a forged one: ${shown(vsForged)}${vsOwn.length === 0 ? "; and it is B's answer on its own handle" : ''}`,
        },
  );
}

/** A slot's verdict from what B's answer on A's handle showed. */
function slotVerdict(
  trial: Trial,
  slot: Slot,
  cross: Driven,
  found: Attribution,
  apart: boolean,
): ProbeDecision {
  const { attributed, swap, unseen, counted } = found;
  if (attributed.length > 0) {
    if (!apart) return errored('the server did not show that it tells A and B apart');
    const what = attributed.some((m) => m.kind === 'canary') ? 'canary' : 'principal';
    return confirmed(`B presented A's handle to ${slot.where} and got A's ${what} back`);
  }
  if (cross.reading === 'refused')
    return refuted(`${slot.where} refused B the handle minted for A (${describe(cross.exchange)})`);
  if (!apart) return errored('the server did not show that it tells A and B apart');
  if (swap?.reading === 'undecided')
    return errored(`A's data came back in B's answer, but so was it in A's handle: ${swap.detail}`);
  if (unseen.length > 0) {
    // Only what A's handle spells came back, and the server shows whatever a handle spells.
    trial.observations.push({
      label: 'the handle spells its record',
      detail: `B's answer on A's handle showed only what A's handle itself carries: B learns nothing the handle did not already say`,
    });
    return refuted(`B's answer on A's handle showed nothing of A's beyond the handle itself`);
  }
  if (counted.length > 0) {
    trial.observations.push({
      label: 'A-data reaches B anyway',
      detail: `B's answer on A's handle showed A's data, but so did B's answers without it (a shared view, not the handle)`,
    });
  }
  trial.observations.push({
    label: "accepted, not shown to be A's",
    detail: `${slot.where} answered B on A's handle without A's canary or principal`,
  });
  return refuted(`B's answer on A's handle showed nothing of A's`);
}

/** One slot presented cross-principal: the forged-handle control, then A's handle, judged. */
async function judgeSlot(pair: HandlePair, slot: Slot): Promise<ProbeDecision> {
  const { trial } = pair;
  const control = await presentForged(pair, slot);
  if ('verdict' in control) return control;
  const cross = await pair.read(
    slot.a,
    'B',
    `B presents A's handle${slot.suffix}`,
    slot.bCo,
    pair.canaryB,
    slot.recipe,
  );
  const found = await attribute(pair, slot, cross, control);
  // Refused at any round: at round 1 (nothing answered) or later in its flow.
  const apart = found.aTokens.length > 0 || cross.reading === 'refused';
  check(
    trial,
    'serverTellsApart',
    apart,
    'the server names something for A (twice) that it never names for B, or refuses B what it gives A',
    found.aTokens.length > 0
      ? `${found.aTokens.length} A-only token(s) in A's answers`
      : `no A-only token; B on A's handle: ${how(cross)}`,
  );
  if (!cross.answered && cross.reading === 'failure')
    return errored(`B's presentation of A's handle drew no decision: ${describe(cross.exchange)}`);
  noteAgainstControls(pair, cross, control.forged, [slot.a, control.forgedHandle, slot.b]);
  return slotVerdict(trial, slot, cross, found, apart);
}

/**
 * Each slot in turn (each with its own forged-handle control and the same shared ones), until one
 * confirms or the budget runs out.
 */
async function judgeSlots(pair: HandlePair, slots: readonly Slot[]): Promise<Judged[]> {
  const { trial } = pair;
  const controls = new Map(trial.controls);
  const judged: Judged[] = [];
  for (const slot of slots) {
    trial.controls.clear();
    for (const [id, c] of controls) trial.controls.set(id, c);
    const before = trial.observations.length;
    const decision = await judgeSlot(pair, slot);
    // Which slot an observation is about, once there are several.
    if (slots.length > 1)
      trial.observations.splice(
        before,
        Infinity,
        ...trial.observations
          .slice(before)
          .map((o) => ({ ...o, label: `${o.label} (${slot.where})` })),
      );
    judged.push({ slot, decision, controls: new Map(trial.controls) });
    if (decision.verdict === 'confirmed' || trial.outOfBudget) break;
  }
  return judged;
}

/**
 * A confirmation in any slot wins; then a slot that drew no decision (never papered over by a
 * refutation in another); else the refutation, every slot refuted. The trial keeps the picked
 * slot's controls.
 */
function pickSlot(trial: Trial, judged: readonly Judged[]): Trial['decision'] {
  const pick =
    judged.find((j) => j.decision?.verdict === 'confirmed') ??
    judged.find((j) => j.decision?.verdict !== 'refuted') ??
    judged[0];
  if (pick === undefined) return errored('no slot was presented');
  trial.controls.clear();
  for (const [id, c] of pick.controls) trial.controls.set(id, c);
  if (pick.decision?.verdict === 'refuted' && judged.length > 1)
    return refuted(
      `${pick.decision.reason}; and so in every other slot (${judged
        .slice(1)
        .map((j) => j.slot.where)
        .join(', ')})`,
    );
  return pick.decision;
}

/**
 * One recipe, tried with the handle A minted (`mintA`) and, when discovery made it, A's read of it
 * (`readBefore`): B and A mint again, each reads its own, B presents a forged handle, then A's.
 * The trial records the controls (`bMintsOwnHandle`, `bothIdentitiesLive`, `forgedHandleDecided`,
 * `serverTellsApart`) and its decision; see the probe's rationale for how each is read.
 */
export async function tryHandlePair(
  ctx: ProbeContext,
  recipe: HandleRecipe,
  mintA: MintedHandle,
  readBefore?: Driven,
): Promise<Trial> {
  const where = consumerName(recipe.consumer);
  const trial = startTrial(`${recipe.minter.name} → ${where}`);
  const canaryB = makeCanary('read');
  const read: Read = (handle, who, label, co, canary = makeCanary('read'), to = recipe) =>
    callThrough(ctx, consumerCall(to.consumer, handle, canary, co), who, label);
  const done = (d: Trial['decision']): Trial => Object.assign(trial, { decision: d });

  const minted = await mintAgain(ctx, trial, recipe);
  if ('verdict' in minted) return done(minted);
  const { mintB, mintA2 } = minted;
  const readA = readBefore ?? (await read(mintA.handle, 'A', "A reads A's handle", mintA.co));
  const readB = await read(mintB.handle, 'B', "B reads B's handle", mintB.co, canaryB);
  const readA2 = await read(mintA2.handle, 'A', "A reads A's second handle", mintA2.co);
  if (!readA.answered && readA.reading === 'refused') {
    return done(skipped(`${where} refused A its own handle: not a consumer of it`));
  }
  const live = [readA, readB, readA2].every((r) => r.answered);
  check(
    trial,
    'bothIdentitiesLive',
    live,
    'A and B each read their own handle',
    [readA, readB, readA2].map(how).join(' / '),
  );
  if (!live) return done(errored('an identity could not read its own handle'));

  // Each slot of a consumer of several minted values is presented in turn: A's value in that slot,
  // B's own values in the others, each with its own forged-handle control and the same shared ones.
  const slots = slotsOf(recipe, [mintA, mintA2, mintB]);
  const pair: HandlePair = {
    ctx,
    trial,
    read,
    canaryB,
    mintA,
    mintA2,
    mintB,
    readA,
    readB,
    readA2,
  };
  return done(pickSlot(trial, await judgeSlots(pair, slots)));
}

/**
 * The swapped-handle control: B presents A's handle with the first carried marker swapped for a
 * control canary. The control shown back: the server repeats what the handle says (`reflected`).
 * The edited handle refused, or answered without the control: the server looked A's record up
 * (`served`). No edited handle can be built, or no decision came: `undecided`.
 */
async function swapControl(
  ctx: ProbeContext,
  recipe: HandleRecipe,
  handle: string,
  carried: readonly Marker[],
  co: readonly string[] | undefined,
  canary: string,
): Promise<Swap> {
  const control = makeCanary('control');
  const from = carried[0]?.value ?? '';
  const edited = swapCarried(handle, from, control);
  if (edited === undefined)
    return {
      reading: 'undecided',
      detail: `the handle carries ${from} in a form that cannot be edited`,
    };
  const d = await callThrough(
    ctx,
    consumerCall(recipe.consumer, edited, canary, co),
    'B',
    "B presents A's handle with its record's value swapped for a control canary",
  );
  if (d.reading === 'refused')
    return {
      reading: 'served',
      detail: `the edited handle was refused (${describe(d.exchange)}): the handle is checked, and A's record was served from it`,
    };
  if (!d.answered)
    return {
      reading: 'undecided',
      detail: `the edited handle drew no decision: ${describe(d.exchange)}`,
    };
  return shows(blanked(d.answers, [edited]), control)
    ? {
        reading: 'reflected',
        detail:
          "the control canary came back: the server shows what the handle says, not a record of A's",
      }
    : {
        reading: 'served',
        detail:
          "the edited handle was answered without the control canary: the record shown is the server's, not the handle's",
      };
}
