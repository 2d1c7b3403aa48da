import { HANDLE_HIJACKING, STATEFUL_TOOLS } from '../references.js';
import { defineProbe, errored, skipped } from '../define.js';
import { describe, readOutcome, resultOf } from '../flow.js';
import { mintHandle, tryHandlePair } from '../handle-trial.js';
import { makeCanary } from '../markers.js';
import { callableTools, handlePairs, mintedValue } from '../surface.js';
import { report, type Trial } from '../trial.js';
import type { Exchange } from '../types.js';

const RATIONALE = `
Since 2026-07-28 the core is stateless: a server that needs state across calls mints an explicit
handle and the model passes it back as an argument. A handle is text in a model's context, so
anything that can write into that context can hand one user's handle to another. The security best
practices require servers to bind handles to the authenticated user and to reject a handle presented
by any other principal.

A mints a handle with a canary in its free-form strings; B presents it. **Confirmed** only when A's
canary, or A's principal as the server names it, comes back to B — never on a bare "yes", and never
from a marker B's own request carried in any encoding (a handle that embeds its label is an echo),
and never from a marker B sees anyway: one that B's own records or the forged handle's answer show
too reaches B through a shared view (a public feed), not through A's handle, and is only noted.

Controls: A reads its own handle and B mints and reads its own (both identities live, the pair is a
real minter/consumer); B's forged, same-shaped handle draws a decision (if it is honoured the server
validates nothing, which is noted as an observation, and only A's marker can confirm); and the server
tells A and B apart: its answers name something for A, at two times, that it never names for B (or it
refuses B what it gives A). Two identical identities, or a server that ignores identity, fail that
control and end \`errored\`, never \`confirmed\`.

Budget: 24 calls; pairs are tried read-only consumer first, and the strongest evidence is reported.`;

const MAX_CALLS = 24;

export default defineProbe({
  id: 'handle/cross-principal',
  title: 'A handle minted for one principal is refused to another',
  severity: 'high',
  rationale: RATIONALE.trim(),
  references: [HANDLE_HIJACKING, STATEFUL_TOOLS],
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
        first = { canary, exchange: await mintHandle(ctx, pair, 'A', canary, 'A mints') };
        mints.set(pair.minter.name, first);
      }
      if (readOutcome(first.exchange.outcome) === 'failure') {
        return errored(
          `${pair.minter.name} drew no decision when A minted: ${describe(first.exchange)}`,
        );
      }
      const handle = mintedValue(resultOf(first.exchange), pair.property, pair.minter);
      if (handle === undefined) continue;
      const trial = await tryHandlePair(ctx, pair, handle, first.canary, resultOf(first.exchange));
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
