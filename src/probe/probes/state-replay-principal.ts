import { confirmed, defineProbe, errored, refuted, type ProbeContext } from '../define.js';
import { describe, establish, establishedAs, resultOf, retryFresh, type Resumed } from '../flow.js';
import { distinctTokens, markerCounts, showsToken } from '../markers.js';
import { discoverFlows, noFlowReason, prepareCall, type FoundFlow } from '../prepare.js';
import { check, outOfBudget, report, startTrial, type Trial } from '../trial.js';

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
state and acted on is the finding, while an echo of the blob would not show it.

Controls: A's own untouched retry is accepted; B's own flow is accepted; the server tells A and B
apart (its answers to A name something its answers to B never do, or it refuses B what it gave A), so
two identical identities or a server that ignores identity end \`errored\`, never \`confirmed\`.
**Refuted** when B is refused. A timeout or 5xx on the replay is never a refusal.

Budget: 24 calls, one flow.`;

export default defineProbe({
  id: 'state/replay-principal',
  title: "Another principal cannot replay a principal's requestState",
  severity: 'high',
  rationale: RATIONALE.trim(),
  references: [
    {
      id: 'MCP MRTR: requestState binding',
      url: 'https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr',
    },
  ],
  maxCalls: 24,
  async run(ctx) {
    const found = await discoverFlows(ctx, 'A', { limit: 1, maxTools: 4, tag: 'replay-a' });
    const flow = found.flows[0];
    if (flow === undefined) {
      return noFlowReason(found);
    }
    return report(ctx, [await replay(ctx, flow)], errored('no trial reached a verdict'));
  },
});

async function replay(ctx: ProbeContext, flow: FoundFlow): Promise<Trial> {
  const { call, tool, canary: canaryA, handles: handlesA } = flow.prepared;
  const trial = startTrial(tool.name);
  const done = (d: Trial['decision']): Trial => Object.assign(trial, { decision: d });

  const a = await establish(ctx, call, 'A', `${tool.name} as A`, flow.asked);
  check(
    trial,
    'aUntouchedRetryAccepted',
    a.ok,
    "A's own untouched retry is accepted",
    establishedAs(a),
  );
  if (!a.ok)
    return done(errored(`A's untouched retry of ${tool.name} did not work (${establishedAs(a)})`));

  const prepB = await prepareCall(ctx, tool, 'B', 'replay-b');
  const b = prepB.ok
    ? await establish(ctx, prepB.prepared.call, 'B', `${tool.name} as B`)
    : undefined;
  check(
    trial,
    'bOwnFlowAccepted',
    b?.ok === true,
    "B's own flow is accepted (B is live)",
    b === undefined ? (prepB.ok ? '' : prepB.why) : establishedAs(b),
  );
  if (!prepB.ok || b === undefined || !b.ok)
    return done(errored(`B's own flow on ${tool.name} did not work`));

  const exclude = [canaryA, prepB.prepared.canary, ...handlesA, ...prepB.prepared.handles];
  const aTokens = distinctTokens(
    [resultOf(a.final.exchange)],
    [resultOf(b.final.exchange)],
    exclude,
  );
  const shape = a.shape;
  const variants = [
    { what: "A's call", retryCall: call },
    { what: "B's own call", retryCall: prepB.prepared.call },
  ];
  let refusedOnA = false;
  let acceptedOn: string | undefined;
  for (const v of variants) {
    const r = await retryFresh(ctx, call, {
      owner: 'A',
      sender: 'B',
      label: `B sends A's untouched state on ${v.what}`,
      shape,
      change: (s) => s,
      retryCall: v.retryCall,
    });
    const resumed: Resumed | undefined = r.resumed;
    if (outOfBudget(trial, r.round1) || (resumed && outOfBudget(trial, resumed.exchange))) break;
    if (resumed === undefined)
      return done(errored(`A's fresh round 1 did not ask again: ${describe(r.round1)}`));
    if (resumed.reading === 'failure')
      return done(
        errored(`B's replay of A's state drew no decision: ${describe(resumed.exchange)}`),
      );
    if (resumed.reading !== 'accepted') {
      if (v.retryCall === call) refusedOnA = true;
      continue;
    }
    const answer = resultOf(resumed.exchange);
    const opts = { rawOnlyKeys: ['requestState'] };
    const apart = aTokens.length > 0;
    check(
      trial,
      'serverTellsApart',
      apart,
      "the server's answers to A name something its answers to B never do",
      apart ? `${aTokens.length} A-only token(s)` : 'none: A and B are answered alike',
    );
    if (!apart) return done(errored('the server did not show that it tells A and B apart'));
    if (markerCounts(canaryA, answer, resumed.sent, opts))
      return done(
        confirmed(
          `B replayed A's untouched requestState on ${v.what} and was served A's data (A's canary came back)`,
        ),
      );
    if (showsToken(answer, aTokens, resumed.sent, opts) !== undefined)
      return done(
        confirmed(
          `B replayed A's untouched requestState on ${v.what} and was served as A (A's principal came back)`,
        ),
      );
    acceptedOn ??= v.what;
  }
  const apart = aTokens.length > 0 || refusedOnA;
  check(
    trial,
    'serverTellsApart',
    apart,
    "the server's answers to A name something its answers to B never do, or it refuses B what it gave A",
    aTokens.length > 0
      ? `${aTokens.length} A-only token(s)`
      : refusedOnA
        ? "B was refused on A's call"
        : 'none',
  );
  if (trial.outOfBudget) return done(errored('the budget ran out before the replay'));
  if (!apart) return done(errored('the server did not show that it tells A and B apart'));
  if (acceptedOn !== undefined) {
    trial.observations.push({
      label: "accepted, not shown to be A's",
      detail: `B's replay on ${acceptedOn} was accepted without A's canary or principal in the answer`,
    });
    return done(refuted(`B's replay of A's state showed nothing of A's`));
  }
  return done(refuted(`${tool.name} refused B's replay of A's untouched requestState`));
}
