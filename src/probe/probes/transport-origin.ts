import { TRANSPORT_ORIGIN } from '../references.js';
import { confirmed, defineProbe, errored, refuted, skipped } from '../define.js';
import { describe } from '../trials/rounds.js';
import type { Exchange } from '../types.js';

const RATIONALE = `
A web page the user visits can make the browser POST to a server on localhost or on the user's
network (DNS rebinding: a hostname that resolved to the attacker first resolves to 127.0.0.1 next).
The browser sends the page's \`Origin\`; the Streamable HTTP transport therefore says, in 2025-11-25
and 2026-07-28 alike, that servers MUST validate the \`Origin\` header on every incoming connection
and MUST answer an invalid one with HTTP 403 Forbidden. A server that skips it serves any web page
with the user's own reach.

The probe sends one ordinary request (\`server/discover\` where the server has it, \`ping\` on a
2025-11-25 server, else \`tools/list\`), carrying identity A as usual, twice: once as any client
would, once with \`Origin: ${'https://stateguard-rebinding.invalid'}\`. **Confirmed** when
the foreign-Origin request gets the ordinary answer (a 2xx JSON-RPC result). **Refuted** on 403.
Anything else (401, another 4xx, a 5xx, a timeout, an in-band error) is \`errored\` with the answer
named: it is neither the MUST nor an ordinary answer, and an outage is never read either way.

Control: the same request without the foreign \`Origin\` is answered with a result, so a 403 means
the Origin and not the request. A foreign \`Host\` header is a separate defence (it stops rebinding
even from clients that send no Origin); it is tried once and reported as an observation, never as
this probe's verdict. Runs on 2025-11-25 servers too; skipped over stdio, which has no Origin.

Budget: 3 calls.`;

/** The Origin of a page that is not the server's: reserved, so it can never be a real one. */
export const FOREIGN_ORIGIN = 'https://stateguard-rebinding.invalid';
const FOREIGN_HOST = 'stateguard-rebinding.invalid';

const statusOf = (e: Exchange): number | undefined =>
  e.evidence.kind === 'http' ? e.evidence.response?.status : undefined;

/** How an HTTP answer reads in a reason: `HTTP 403`, `HTTP 200, result`. */
function answered(e: Exchange): string {
  const status = statusOf(e);
  return status === undefined ? describe(e) : `HTTP ${status}, ${describe(e)}`;
}

const ordinary = (e: Exchange): boolean => {
  const status = statusOf(e);
  return e.outcome.kind === 'result' && status !== undefined && status >= 200 && status < 300;
};

export default defineProbe({
  id: 'transport/origin',
  title: 'A request with a foreign Origin is refused with 403',
  severity: 'medium',
  rationale: RATIONALE.trim(),
  references: [TRANSPORT_ORIGIN],
  maxCalls: 3,
  runsOnLegacy: true,
  async run(ctx) {
    if (ctx.transport !== 'http')
      return skipped('precondition: the Streamable HTTP transport (stdio carries no Origin)');
    // A request every server of its era answers, whatever it offers (a prompt-only server has no tools).
    const method = ctx.protocol.discover
      ? 'server/discover'
      : ctx.protocol.era === 'legacy'
        ? 'ping'
        : 'tools/list';
    const plain = await ctx.request(method, {}, { identity: 'A', label: method });
    ctx.control('ordinaryRequestAnswered', {
      held: ordinary(plain),
      expected: 'the request without a foreign Origin is answered with a result',
      observed: answered(plain),
    });
    if (!ordinary(plain))
      return errored(`the ordinary request was not answered (${answered(plain)})`);

    const foreign = await ctx.request(
      method,
      {},
      {
        identity: 'A',
        label: `${method} with Origin ${FOREIGN_ORIGIN}`,
        headers: { origin: FOREIGN_ORIGIN },
      },
    );
    const host = await ctx.request(
      method,
      {},
      {
        identity: 'A',
        label: `${method} with Host ${FOREIGN_HOST}`,
        headers: { host: FOREIGN_HOST },
      },
    );
    // An observation only: the Host check is a defence of its own, not the Origin MUST.
    ctx.observe(
      ordinary(host) ? 'Host not checked' : 'Host checked',
      ordinary(host)
        ? `a request naming Host ${FOREIGN_HOST} was served (${answered(host)})`
        : `a request naming Host ${FOREIGN_HOST} was not served (${answered(host)})`,
    );

    if (statusOf(foreign) === 403)
      return refuted(`the request with Origin ${FOREIGN_ORIGIN} was refused (HTTP 403)`);
    if (ordinary(foreign))
      return confirmed(
        `the request with Origin ${FOREIGN_ORIGIN} was served like any other (${answered(foreign)}): no Origin validation, open to DNS rebinding`,
      );
    return errored(
      `the request with a foreign Origin drew neither 403 nor an ordinary answer (${answered(foreign)})`,
    );
  },
});
