import { confirmed, defineProbe, errored, refuted, skipped, type ProbeContext } from '../define.js';
import { describe, readOutcome, resultOf } from '../flow.js';
import { distinctTokens, makeCanary, markerCounts, showsToken } from '../markers.js';
import { randomSameShape } from '../mutate.js';
import {
  argumentsFor,
  callableTools,
  handlePairs,
  mintedValue,
  type HandlePair,
} from '../surface.js';
import { check, outOfBudget, report, startTrial, type Trial } from '../trial.js';
import type { Exchange, IdentityName } from '../types.js';

const RATIONALE = `
Since 2026-07-28 the core is stateless: a server that needs state across calls mints an explicit
handle and the model passes it back as an argument. A handle is text in a model's context, so
anything that can write into that context can hand one user's handle to another. The security best
practices require servers to bind handles to the authenticated user and to reject a handle presented
by any other principal.

A mints a handle with a canary in its free-form strings; B presents it. **Confirmed** only when A's
canary, or A's principal as the server names it, comes back to B — never on a bare "yes", and never
from a marker B's own request carried in any encoding (a handle that embeds its label is an echo).

Controls: A reads its own handle and B mints and reads its own (both identities live, the pair is a
real minter/consumer); B's forged, same-shaped handle draws a decision (if it is honoured the server
validates nothing, which is noted as an observation, and only A's marker can confirm); and the server
tells A and B apart: its answers name something for A, at two times, that it never names for B (or it
refuses B what it gives A). Two identical identities, or a server that ignores identity, fail that
control and end \`errored\`, never \`confirmed\`.

Budget: 24 calls; pairs are tried read-only consumer first, and the strongest evidence is reported.`;

const MAX_CALLS = 24;
const answered = (e: Exchange): boolean => ['accepted', 'input'].includes(readOutcome(e.outcome));

export default defineProbe({
  id: 'handle/cross-principal',
  title: 'A handle minted for one principal is refused to another',
  severity: 'high',
  rationale: RATIONALE.trim(),
  references: [
    {
      id: 'MCP security best practices: state handle hijacking',
      url: 'https://modelcontextprotocol.io/docs/tutorials/security/security_best_practices#state-handle-hijacking',
    },
    {
      id: 'MCP tools: stateful tools',
      url: 'https://modelcontextprotocol.io/specification/2026-07-28/server/tools',
    },
  ],
  maxCalls: MAX_CALLS,
  async run(ctx) {
    const pairs = handlePairs(callableTools(ctx.protocol.tools, ctx.includeDestructive));
    if (pairs.length === 0)
      return skipped('precondition: a tool that takes a handle another tool mints (none found)');
    const mints = new Map<string, { exchange: Exchange; canary: string }>();
    const trials: Trial[] = [];
    for (const pair of pairs) {
      let first = mints.get(pair.minter.name);
      if (first === undefined) {
        const canary = makeCanary('handle-a');
        first = { canary, exchange: await mint(ctx, pair, 'A', canary, 'A mints') };
        mints.set(pair.minter.name, first);
      }
      if (readOutcome(first.exchange.outcome) === 'failure') {
        return errored(
          `${pair.minter.name} drew no decision when A minted: ${describe(first.exchange)}`,
        );
      }
      const handle = mintedValue(resultOf(first.exchange), pair.property, pair.minter);
      if (handle === undefined) continue;
      const trial = await tryPair(ctx, pair, handle, first.canary, resultOf(first.exchange));
      trials.push(trial);
      if (trial.decision?.verdict === 'confirmed' || trial.outOfBudget) break;
    }
    const tried = pairs.map((p) => `${p.minter.name}→${p.consumer.name}`).join(', ');
    return report(
      ctx,
      trials,
      skipped(`precondition: a handle one tool mints and another takes (tried ${tried})`),
    );
  },
});

function mint(
  ctx: ProbeContext,
  pair: HandlePair,
  who: IdentityName,
  canary: string,
  label: string,
) {
  const args = argumentsFor(pair.minter.inputSchema, { canary, boolean: false });
  return ctx.request(
    'tools/call',
    { name: pair.minter.name, arguments: args },
    { identity: who, label },
  );
}

async function tryPair(
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
  const mintB = await mint(ctx, pair, 'B', canaryB, 'B mints its own');
  const mintA2 = await mint(ctx, pair, 'A', canaryA2, 'A mints a second');
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
  const aTokens = distinctTokens(
    [
      [mintA, resultOf(readA.exchange)],
      [resultOf(mintA2), resultOf(readA2.exchange)],
    ],
    [[resultOf(mintB), resultOf(readB.exchange)]],
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
  const answer = resultOf(cross.exchange);
  if (markerCounts(canaryA, answer, cross.params)) {
    return done(
      confirmed(`B presented A's ${property} to ${consumer.name} and got A's canary back`),
    );
  }
  if (showsToken(answer, aTokens, cross.params) !== undefined) {
    return done(
      confirmed(`B presented A's ${property} to ${consumer.name} and got A's principal back`),
    );
  }
  trial.observations.push({
    label: "accepted, not shown to be A's",
    detail: `${consumer.name} answered B on A's ${property} without A's canary or principal`,
  });
  return done(refuted(`B's answer on A's handle showed nothing of A's`));
}
