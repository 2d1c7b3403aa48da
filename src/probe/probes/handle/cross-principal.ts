import { HANDLE_HIJACKING, STATEFUL_TOOLS } from '../../model/references.js';
import {
  defineProbe,
  errored,
  skipped,
  type ProbeContext,
  type ProbeDecision,
} from '../../model/probe.js';
import {
  mint,
  othersOf,
  recipeName,
  takeHandedPair,
  type HandleRecipe,
  type Minted,
} from '../../surface/recipes.js';
import { describe, type Driven } from '../../driver/rounds.js';
import { tryHandlePair } from '../../experiments/handle-trial.js';
import { makeCanary } from '../../evidence/markers.js';
import { report, type Trial } from '../../experiments/trial.js';

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

B's answer on A's handle is judged by experiment: it is lined up against B's answer on the forged
handle and on B's own handle (the same canary, the handles blanked where quoted), and what differs
is reported; an answer that is the forged handle's answer opened nothing of A's.

Handles are found by value (see discovery): what differs between two identical minting calls,
wherever it sits (structured content at any depth, JSON or a word in text, \`_meta\`, a resource
link), that another call takes back (a tool parameter at any depth, a \`resources/read\` URI). A
consumer that takes several minted values is tried slot by slot in one trial: A's value in each slot
in turn, B's own values in the others, each slot with its own forged-handle control. Every read is driven through all its rounds, so an owner the server names
only at completion still counts.

Budget: 32 calls; recipes whose consumer refused a placeholder are tried first, and the strongest
evidence is reported.`;

const MAX_CALLS = 32;

/** The tool and every slot of a consumer of several minted values; `undefined` for one slot. */
function consumerKey(r: HandleRecipe): string | undefined {
  const others = othersOf(r);
  if (r.consumer.kind !== 'tool' || others.length === 0) return undefined;
  const paths = [r.consumer.path, ...others.map((o) => o.path)].map((p) => JSON.stringify(p));
  return `${r.consumer.tool.name}\u0000${paths.sort().join('\u0000')}`;
}

export default defineProbe({
  id: 'handle/cross-principal',
  title: 'A handle minted for one principal is refused to another',
  flaw: 'A handle minted for one principal is honoured for another',
  severity: 'high',
  rationale: RATIONALE.trim(),
  references: [HANDLE_HIJACKING, STATEFUL_TOOLS],
  maxCalls: MAX_CALLS,
  // Binding a handle to its principal does not depend on the era: most servers in use still speak
  // 2025-11-25, and their handles are as presentable by anyone.
  runsOnLegacy: true,
  async run(ctx) {
    // A consumer of several minted values has one recipe per slot; its trial presents every slot
    // in turn, so only its first recipe is tried (the others would spend the budget on the same
    // mints and reads).
    const seen = new Set<string>();
    const recipes = [...ctx.surface.handles]
      .sort((a, b) => Number(b.checked) - Number(a.checked))
      .filter((r) => {
        const key = consumerKey(r);
        if (key === undefined) return true;
        if (seen.has(key)) return false;
        seen.add(key);
        return true;
      });
    if (recipes.length === 0) {
      const failed = ctx.surface.failures[0];
      if (failed !== undefined)
        return errored(
          `no handle found, but discovery drew no decision (${failed}), so its absence proves nothing`,
        );
      return skipped(
        `precondition: a value one call mints and another takes back (tried: ${ctx.surface.tried.join(', ') || 'nothing callable'})`,
      );
    }
    const trials: Trial[] = [];
    for (const recipe of recipes.slice(0, 3)) {
      const first = await firstOfA(ctx, recipe);
      if (first === undefined) continue;
      if ('verdict' in first) return first;
      const trial = await tryHandlePair(ctx, recipe, first.mintA, first.readA);
      trials.push(trial);
      if (trial.decision?.verdict === 'confirmed' || trial.outOfBudget) break;
    }
    const tried = recipes.map(recipeName).join(', ');
    return report(
      ctx,
      trials,
      skipped(`precondition: a handle one call mints and another takes (tried ${tried})`),
    );
  },
});

/**
 * A's first handle of `recipe`: discovery's mint and read of it when discovery handed them on (the
 * same requests, sent once, and cited), else a mint of A's own; a decision when that mint drew
 * none, undefined when it minted nothing the consumer can take.
 */
async function firstOfA(
  ctx: ProbeContext,
  recipe: HandleRecipe,
): Promise<{ mintA: Minted & { handle: string }; readA?: Driven } | ProbeDecision | undefined> {
  const handed = takeHandedPair(recipe);
  if (handed !== undefined) {
    ctx.cite(
      `${recipeName(recipe)}: A's mint and A's read of its handle handed on from discovery`,
      [handed.minted.driven.exchange, handed.read.exchange],
    );
    return { mintA: handed.minted, readA: handed.read };
  }
  const first = await mint(ctx, recipe, 'A', 'A mints', makeCanary('handle-a'));
  if (!first.driven.answered && first.driven.reading === 'failure')
    return errored(
      `${recipe.minter.name} drew no decision when A minted: ${describe(first.driven.exchange)}`,
    );
  // A consumer of several handles needs A's own value in every other slot too.
  if (first.handle === undefined || (othersOf(recipe).length > 0 && first.co === undefined))
    return undefined;
  return { mintA: { ...first, handle: first.handle } };
}
