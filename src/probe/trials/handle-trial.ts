/**
 * The handle probe's trial: given a handle A minted through a discovered recipe, find out whether
 * its consumer hands A's object to B, and whether the instrument was live while it asked. The
 * controls are what keep a "yes" from reading as a finding: both identities live, a forged handle
 * decided, and the server shown to tell A and B apart (A-only tokens in A's answers, or B refused
 * what A gets). Every read is driven through all its rounds, and judged on all of them.
 */
import { randomInt } from 'node:crypto';
import { confirmed, errored, refuted, skipped, type ProbeContext } from '../define.js';
import {
  consumerCall,
  consumerName,
  mint,
  type HandleRecipe,
  type Minted,
} from '../surface/recipes.js';
import { callThrough, describe, type Driven } from './rounds.js';
import { distinctTokens, makeCanary, markersOf } from '../evidence/markers.js';
import { attributable } from '../evidence/echo.js';
import { randomSameShape } from './mutate.js';
import { check, outOfBudget, startTrial, type Trial } from './trial.js';
import type { IdentityName } from '../types.js';

const how = (d: Driven): string => (d.answered ? 'answered' : describe(d.exchange));

/**
 * One recipe, tried with the handle A minted (`mintA`): B and A mint again, each reads its own, B
 * presents a forged handle, then A's. The trial records the controls (`bMintsOwnHandle`,
 * `bothIdentitiesLive`, `forgedHandleDecided`, `serverTellsApart`) and its decision; see the
 * probe's rationale for how each is read.
 */
export async function tryHandlePair(
  ctx: ProbeContext,
  recipe: HandleRecipe,
  mintA: Minted & { handle: string },
): Promise<Trial> {
  const where = consumerName(recipe.consumer);
  const trial = startTrial(`${recipe.minter.name} → ${where}`);
  const read = (handle: string, who: IdentityName, label: string): Promise<Driven> =>
    callThrough(ctx, consumerCall(recipe.consumer, handle, makeCanary('read')), who, label);
  const done = (d: Trial['decision']): Trial => Object.assign(trial, { decision: d });

  // A, B, A: interleaved in time, so a clock or counter in the answers is the same for both A's.
  const mintB = await mint(ctx, recipe, 'B', 'B mints its own');
  const mintA2 = await mint(ctx, recipe, 'A', 'A mints a second');
  if ([mintB, mintA2].some((m) => outOfBudget(trial, m.driven.exchange)))
    return done(errored('budget spent while minting'));
  if (mintB.handle === undefined || mintA2.handle === undefined) {
    check(
      trial,
      'bMintsOwnHandle',
      false,
      'B (and A again) can mint a handle',
      `${how(mintB.driven)} / ${how(mintA2.driven)}`,
    );
    return done(
      errored('B could not mint a handle of its own, so B is not a live second identity'),
    );
  }
  const readA = await read(mintA.handle, 'A', "A reads A's handle");
  const readB = await read(mintB.handle, 'B', "B reads B's handle");
  const readA2 = await read(mintA2.handle, 'A', "A reads A's second handle");
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

  // A numeric id counted up from 1 would, forged at the same length, often be somebody's real one:
  // a forgery must be a value the server never minted, so a number goes far out of that range.
  const forgedHandle =
    recipe.found.numeric === true
      ? String(100_000_000 + randomInt(900_000_000))
      : randomSameShape(mintB.handle);
  const forged = await read(forgedHandle, 'B', 'B presents a forged handle of the same shape');
  const forgedDecided = forged.answered || forged.reading === 'refused';
  check(
    trial,
    'forgedHandleDecided',
    forgedDecided,
    'a decision on a handle the server never minted (refused, or else noted)',
    how(forged),
  );
  if (!forgedDecided) return done(errored('the forged-handle control drew no decision'));
  if (forged.answered) {
    trial.observations.push({
      label: 'no handle validation',
      detail: `${where} honoured a handle it never minted, so a "yes" to B proves nothing; only A's canary or principal can confirm`,
    });
  }

  const cross = await read(mintA.handle, 'B', "B presents A's handle");
  const handles = [mintA.handle, mintA2.handle, mintB.handle, forgedHandle];
  const exclude = [...handles, mintA.canary, mintA2.canary, mintB.canary];
  // What B sees without A's handle: its own records, and what a forged handle opens.
  const bSees = [...mintB.driven.answers, ...readB.answers, ...forged.answers];
  const aTokens = distinctTokens(
    [
      [...mintA.driven.answers, ...readA.answers],
      [...mintA2.driven.answers, ...readA2.answers],
    ],
    [bSees],
    exclude,
  );
  // Refused at any round: at round 1 (nothing answered) or later in its flow.
  const crossRefused = cross.reading === 'refused';
  // Every round B was answered counts: an owner named only at completion, a canary quoted early.
  const { counted, attributed } = attributable(
    markersOf(mintA.canary, aTokens),
    cross.answers,
    cross.sent,
    bSees,
  );
  const apart = aTokens.length > 0 || crossRefused;
  check(
    trial,
    'serverTellsApart',
    apart,
    'the server names something for A (twice) that it never names for B, or refuses B what it gives A',
    aTokens.length > 0
      ? `${aTokens.length} A-only token(s) in A's answers`
      : `no A-only token; B on A's handle: ${how(cross)}`,
  );
  if (!cross.answered && cross.reading === 'failure')
    return done(
      errored(`B's presentation of A's handle drew no decision: ${describe(cross.exchange)}`),
    );
  if (attributed.length > 0) {
    if (!apart) return done(errored('the server did not show that it tells A and B apart'));
    const what = attributed.some((m) => m.kind === 'canary') ? 'canary' : 'principal';
    return done(confirmed(`B presented A's handle to ${where} and got A's ${what} back`));
  }
  if (crossRefused)
    return done(
      refuted(`${where} refused B the handle minted for A (${describe(cross.exchange)})`),
    );
  if (!apart) return done(errored('the server did not show that it tells A and B apart'));
  if (counted.length > 0) {
    trial.observations.push({
      label: 'A-data reaches B anyway',
      detail: `B's answer on A's handle showed A's data, but so did B's answers without it (a shared view, not the handle)`,
    });
  }
  trial.observations.push({
    label: "accepted, not shown to be A's",
    detail: `${where} answered B on A's handle without A's canary or principal`,
  });
  return done(refuted(`B's answer on A's handle showed nothing of A's`));
}
