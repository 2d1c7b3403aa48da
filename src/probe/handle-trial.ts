/**
 * The handle probe's pair trial: given a handle A minted through one tool, find out whether another
 * tool hands A's object to B, and whether the instrument was live while it asked. The controls are
 * what keep a "yes" from reading as a finding: both identities live, a forged handle decided, and
 * the server shown to tell A and B apart (A-only tokens in A's answers, or B refused what A gets).
 */
import { confirmed, errored, refuted, skipped, type ProbeContext } from './define.js';
import { describe, readOutcome, resultOf } from './flow.js';
import { attributable, distinctTokens, makeCanary, markersOf } from './markers.js';
import { randomSameShape } from './mutate.js';
import { argumentsFor, mintedValue, type HandlePair } from './surface.js';
import { check, outOfBudget, startTrial, type Trial } from './trial.js';
import type { Exchange, IdentityName } from './types.js';

const answered = (e: Exchange): boolean => ['accepted', 'input'].includes(readOutcome(e.outcome));

/** `who` calls the pair's minter with `canary` planted in its free-form strings. */
export function mintHandle(
  ctx: ProbeContext,
  pair: HandlePair,
  who: IdentityName,
  canary: string,
  label: string,
): Promise<Exchange> {
  const args = argumentsFor(pair.minter.inputSchema, { canary, boolean: false });
  return ctx.request(
    'tools/call',
    { name: pair.minter.name, arguments: args },
    { identity: who, label },
  );
}

/**
 * One minter/consumer pair, tried with `handleA` (minted by A with `canaryA`; `mintA` is A's
 * minting answer): B and A mint again, each reads its own, B presents a forged handle, then A's.
 * The trial records the controls (`bMintsOwnHandle`, `bothIdentitiesLive`, `forgedHandleDecided`,
 * `serverTellsApart`) and its decision; see the probe's rationale for how each is read.
 */
export async function tryHandlePair(
  ctx: ProbeContext,
  pair: HandlePair,
  handleA: string,
  canaryA: string,
  mintA: unknown,
): Promise<Trial> {
  const { consumer, property } = pair;
  const trial = startTrial(`${pair.minter.name}→${consumer.name}.${property}`);
  const read = (handle: string, who: IdentityName, label: string) => {
    const args = argumentsFor(
      consumer.inputSchema,
      { canary: makeCanary('read'), boolean: false },
      { [property]: handle },
    );
    const params = { name: consumer.name, arguments: args };
    return ctx
      .request('tools/call', params, { identity: who, label })
      .then((exchange) => ({ exchange, params }));
  };
  const done = (d: Trial['decision']): Trial => Object.assign(trial, { decision: d });

  // A, B, A: interleaved in time, so a clock or counter in the answers is the same for both A's.
  const canaryB = makeCanary('handle-b');
  const canaryA2 = makeCanary('handle-a2');
  const mintB = await mintHandle(ctx, pair, 'B', canaryB, 'B mints its own');
  const mintA2 = await mintHandle(ctx, pair, 'A', canaryA2, 'A mints a second');
  const handleB = mintedValue(resultOf(mintB), property, pair.minter);
  const handleA2 = mintedValue(resultOf(mintA2), property, pair.minter);
  if ([mintB, mintA2].some((e) => outOfBudget(trial, e)))
    return done(errored('budget spent while minting'));
  if (handleB === undefined || handleA2 === undefined) {
    check(
      trial,
      'bMintsOwnHandle',
      false,
      'B (and A again) can mint a handle',
      `${describe(mintB)} / ${describe(mintA2)}`,
    );
    return done(
      errored('B could not mint a handle of its own, so B is not a live second identity'),
    );
  }
  const readA = await read(handleA, 'A', "A reads A's handle");
  const readB = await read(handleB, 'B', "B reads B's handle");
  const readA2 = await read(handleA2, 'A', "A reads A's second handle");
  if (readOutcome(readA.exchange.outcome) === 'refused') {
    return done(
      skipped(`${consumer.name} refused A its own handle: not a consumer of ${property}`),
    );
  }
  const live = [readA, readB, readA2].every((r) => answered(r.exchange));
  check(
    trial,
    'bothIdentitiesLive',
    live,
    'A and B each read their own handle',
    [readA, readB, readA2].map((r) => describe(r.exchange)).join(' / '),
  );
  if (!live) return done(errored('an identity could not read its own handle'));

  const forgedHandle = randomSameShape(handleB);
  const forged = await read(forgedHandle, 'B', 'B presents a forged handle of the same shape');
  const forgedReading = readOutcome(forged.exchange.outcome);
  check(
    trial,
    'forgedHandleDecided',
    forgedReading !== 'failure',
    'a decision on a handle the server never minted (refused, or else noted)',
    describe(forged.exchange),
  );
  if (forgedReading === 'failure')
    return done(errored('the forged-handle control drew no decision'));
  if (forgedReading !== 'refused') {
    trial.observations.push({
      label: 'no handle validation',
      detail: `${consumer.name} honoured a ${property} it never minted, so a "yes" to B proves nothing; only A's canary or principal can confirm`,
    });
  }

  const cross = await read(handleA, 'B', "B presents A's handle");
  const crossReading = readOutcome(cross.exchange.outcome);
  const exclude = [handleA, handleA2, handleB, forgedHandle, canaryA, canaryA2, canaryB];
  // What B sees without A's handle: its own records, and what a forged handle opens.
  const bSees = [resultOf(mintB), resultOf(readB.exchange), resultOf(forged.exchange)];
  const aTokens = distinctTokens(
    [
      [mintA, resultOf(readA.exchange)],
      [resultOf(mintA2), resultOf(readA2.exchange)],
    ],
    [bSees],
    exclude,
  );
  const apart = aTokens.length > 0 || crossReading === 'refused';
  check(
    trial,
    'serverTellsApart',
    apart,
    'the server names something for A (twice) that it never names for B, or refuses B what it gives A',
    aTokens.length > 0
      ? `${aTokens.length} A-only token(s) in A's answers`
      : `no A-only token; B on A's handle: ${describe(cross.exchange)}`,
  );
  if (crossReading === 'failure')
    return done(
      errored(`B's presentation of A's handle drew no decision: ${describe(cross.exchange)}`),
    );
  if (crossReading === 'refused')
    return done(
      refuted(
        `${consumer.name} refused B the ${property} minted for A (${describe(cross.exchange)})`,
      ),
    );
  if (!apart) return done(errored('the server did not show that it tells A and B apart'));
  const { counted, attributed } = attributable(
    markersOf(canaryA, aTokens),
    resultOf(cross.exchange),
    cross.params,
    bSees,
  );
  if (attributed.length > 0) {
    const what = attributed.some((m) => m.kind === 'canary') ? 'canary' : 'principal';
    return done(
      confirmed(`B presented A's ${property} to ${consumer.name} and got A's ${what} back`),
    );
  }
  if (counted.length > 0) {
    trial.observations.push({
      label: 'A-data reaches B anyway',
      detail: `B's answer on A's ${property} showed A's data, but so did B's answers without it (a shared view, not the handle)`,
    });
  }
  trial.observations.push({
    label: "accepted, not shown to be A's",
    detail: `${consumer.name} answered B on A's ${property} without A's canary or principal`,
  });
  return done(refuted(`B's answer on A's handle showed nothing of A's`));
}
