import { MRTR_BINDING } from '../../model/references.js';
import { defineProbe, errored } from '../../model/probe.js';
import { discoverFlows, noFlowReason } from '../../experiments/prepare.js';
import { tryReplay } from '../../experiments/replay-trial.js';
import { report } from '../../experiments/trial.js';

const RATIONALE = `
The specification says a server SHOULD put the authenticated principal inside the integrity-protected
\`requestState\` and reject a state presented by a different principal. A signature alone is not
enough: a state that is signed but bound to nobody verifies for anyone, so identity B can present A's
untouched state and be served as A. A tamper check passes such a server, because nothing was changed;
this probe exists for exactly that gap.

A runs a flow (its handle minted with a canary) and B runs its own. Then A opens a fresh round 1 and
B sends the retry with A's state, untouched, under B's own identity — first on A's exact call, then,
if refused, on B's own call. **Confirmed** when the answer shows A's canary or A's principal as the
server names it. The canary counts only when B's request did not carry it: every argument is
searched in every encoding, and the \`requestState\` raw, since a field the server *decoded* out of the
state and acted on is the finding, while an echo of the blob would not show it. And a marker counts
only when B's own flow on that call, without A's state, does not show it too: on A's call that flow
is run as an attribution control, because an unbound handle or a public feed shows B A's data
whatever the state, and that is not the state's doing.

Controls: A's own untouched retry is accepted; B's own flow is accepted; the server tells A and B
apart (its answers to A name something its answers to B never do, or it refuses B what it gave A), so
two identical identities or a server that ignores identity end \`errored\`, never \`confirmed\`.
**Refuted** when B is refused. A timeout or 5xx on the replay is never a refusal.

For a flow of several rounds whose round-1 replays were refused, B also takes over A's flow at each
later round with the state that round handed A (a later state may trust plain fields while the first
is sealed).

Budget: 32 calls, one flow.`;

export default defineProbe({
  id: 'state/replay-principal',
  title: "Another principal cannot replay a principal's requestState",
  flaw: "Another principal can replay a principal's requestState",
  severity: 'high',
  rationale: RATIONALE.trim(),
  references: [MRTR_BINDING],
  maxCalls: 32,
  async run(ctx) {
    const found = await discoverFlows(ctx, 'A', {
      limit: 1,
      maxTools: 4,
      tag: 'replay-a',
      shared: true,
    });
    const flow = found.flows[0];
    if (flow === undefined) {
      return noFlowReason(ctx, found);
    }
    return report(ctx, [await tryReplay(ctx, flow)], errored('no trial reached a verdict'));
  },
});
