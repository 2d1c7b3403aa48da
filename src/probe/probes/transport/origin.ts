import { TRANSPORT_ORIGIN } from '../../model/references.js';
import { confirmed, defineProbe, errored, refuted, skipped } from '../../model/probe.js';
import { describe } from '../../driver/rounds.js';
import type { Exchange } from '../../model/wire.js';

const RATIONALE = `
A web page the user visits can make the browser POST to a server on localhost or on the user's
network (DNS rebinding: a hostname that resolved to the attacker first resolves to 127.0.0.1 next).
The browser sends the page's \`Origin\`; the Streamable HTTP transport therefore says, in 2025-11-25
and 2026-07-28 alike, that servers MUST validate the \`Origin\` header on every incoming connection
and MUST answer an invalid one with HTTP 403 Forbidden. A server that skips it serves any web page
with the user's own reach.

The probe sends a request the server has already answered in this scan (\`server/discover\` where
the server has it, \`initialize\` on a 2025-11-25 server, else \`tools/list\`), never a bare
\`ping\`, three times and **without any credential** (no \`Authorization\`, no identity header, no
\`--header\`, no session id: behind a shared ingress a foreign \`Host\` reaches another application,
which must not receive the user's token): once as any client would, once with
\`Origin: ${'https://stateguard-rebinding.invalid'}\`, once with a foreign \`Host\`. A server that
answers 401 without credentials says nothing about its Origin check that way, so the foreign-Origin
request is then sent again as A, to the target's own \`Host\` (the foreign-Host request never carries
a credential); the ordinary request as A is the one the scan sent when it opened the target, cited
from there (sent again only when that answer was not a 2xx result). **Confirmed** when the
foreign-Origin request gets the ordinary answer (a 2xx JSON-RPC result). **Refuted** on 403.
Anything else (another 4xx, a 5xx, a timeout, an in-band error, 403 to both) is \`errored\` with
the answers named: an outage is never read either way.

Control: the same request without the foreign \`Origin\` is answered with a result, so a 403 means
the Origin and not the request. A foreign \`Host\` header is a separate defence (it stops
rebinding even from clients that send no Origin); it is tried once and reported as an observation,
never as this probe's verdict. Runs on 2025-11-25 servers too; skipped over stdio, which has no
Origin.

Budget: 5 calls.`;

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
  flaw: 'A request with a foreign Origin is served (DNS rebinding)',
  severity: 'medium',
  rationale: RATIONALE.trim(),
  references: [TRANSPORT_ORIGIN],
  maxCalls: 5,
  touches: ['sessions'],
  runsOnLegacy: true,
  async run(ctx) {
    if (ctx.transport !== 'http')
      return skipped('precondition: the Streamable HTTP transport (stdio carries no Origin)');
    // A request the opening already had answered: `ping` is optional, and a server may refuse it.
    const method = ctx.protocol.discover
      ? 'server/discover'
      : ctx.protocol.era === 'legacy'
        ? 'initialize'
        : 'tools/list';
    const params: Record<string, unknown> =
      method === 'initialize'
        ? {
            protocolVersion: ctx.protocol.protocolVersion ?? '2025-11-25',
            capabilities: {},
            clientInfo: { name: 'stateguard', version: '0' },
          }
        : {};
    const send = (
      label: string,
      headers?: Record<string, string>,
      credentials = false,
    ): Promise<Exchange> =>
      ctx.request(method, params, {
        identity: 'A',
        label: credentials ? `${label}, as A` : `${label}, without credentials`,
        ...(credentials ? {} : { anonymous: true }),
        ...(headers === undefined ? {} : { headers }),
      });
    // Asked without credentials first. A server that demands them answers 401 whatever the Origin,
    // which says nothing about the Origin check; then the Origin question (never the Host one: a
    // foreign Host may reach another application behind a shared ingress) is asked again as A, to
    // the target's own Host, which reaches this application and no other.
    const anonymous = await send(method);
    const needsCredentials = statusOf(anonymous) === 401;
    // The ordinary request as A is the opening's very request: read, not sent again.
    const opened = needsCredentials ? ctx.opened(method) : undefined;
    const reused = opened !== undefined && ordinary(opened) ? opened : undefined;
    if (reused !== undefined)
      ctx.cite(`${method} as A: the opening's request, the same one, cited and not sent again`, [
        reused,
      ]);
    const plain = !needsCredentials ? anonymous : (reused ?? (await send(method, undefined, true)));
    const decided = ordinary(plain);
    ctx.control('ordinaryRequestAnswered', {
      held: decided,
      expected: 'the request without a foreign Origin is answered with a result',
      observed: needsCredentials
        ? `without credentials: ${answered(anonymous)}; as A: ${answered(plain)}`
        : answered(plain),
    });
    if (!decided) return errored(`the ordinary request was not answered (${answered(plain)})`);

    const foreign = await send(
      `${method} with Origin ${FOREIGN_ORIGIN}`,
      { origin: FOREIGN_ORIGIN },
      needsCredentials,
    );
    const host = await send(`${method} with Host ${FOREIGN_HOST}`, { host: FOREIGN_HOST });
    // An observation only: the Host check is a defence of its own, not the Origin MUST.
    const hostServed = statusOf(host) !== undefined && statusOf(host) === statusOf(anonymous);
    ctx.observe(
      hostServed ? 'Host not checked' : 'Host checked',
      hostServed
        ? `a request naming Host ${FOREIGN_HOST} was answered like one without it (${answered(host)})`
        : `a request naming Host ${FOREIGN_HOST} was not served (${answered(host)})`,
    );

    if (statusOf(foreign) === 403)
      return refuted(`the request with Origin ${FOREIGN_ORIGIN} was refused (HTTP 403)`);
    if (ordinary(foreign))
      return confirmed(
        `the request with Origin ${FOREIGN_ORIGIN} was served like any other (${answered(foreign)}): no Origin validation, open to DNS rebinding`,
      );
    return errored(
      `the request with a foreign Origin drew neither 403 nor the ordinary answer (${answered(foreign)}; without it: ${answered(plain)})`,
    );
  },
});
