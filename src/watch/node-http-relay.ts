/**
 * The terminating relay of `stateguard watch --http`, for an `https:` upstream (and on request for
 * `http:`): Node's HTTP server reads each request, Node's HTTP client sends it to the upstream
 * origin with the same method, path, query, headers (but hop-by-hop ones, and `Host`, which names
 * the upstream) and body; the answer comes back with its status, headers and body, streamed. The
 * bodies pass byte for byte; the heads are read and written again. A copy of each side is recorded
 * (`http-record.ts`).
 *
 * An `http:` upstream goes through the byte relay (`tcp-relay.ts`) instead: this path costs Node's
 * HTTP server and client on the proxy's hop, a few hundred microseconds a round trip.
 */
import {
  Agent as HttpAgent,
  createServer,
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { AddressInfo, Server as NetServer } from 'node:net';
import type { HttpProxy, HttpProxyOptions } from './http-proxy.js';
import {
  recordAnswer,
  recordRequest,
  SessionRun,
  type BodySink,
  type RecordedRequest,
  type RequestHead,
} from './http-record.js';

/** Headers that belong to one connection, never forwarded (RFC 9110 §7.6.1). */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

function forwardHeaders(
  headers: IncomingHttpHeaders,
  drop: ReadonlySet<string>,
): IncomingHttpHeaders {
  const named = new Set(
    String(headers['connection'] ?? '')
      .split(',')
      .map((h) => h.trim().toLowerCase()),
  );
  const out: IncomingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers))
    if (value !== undefined && !HOP_BY_HOP.has(name) && !named.has(name) && !drop.has(name))
      out[name] = value;
  return out;
}

/** Hands a message's body chunks to `sink`, after `pipe` has written each on. */
function feed(message: IncomingMessage, sink: BodySink): void {
  message.on('data', (chunk: Buffer) => sink.push(chunk));
  message.on('end', () => sink.end());
  message.on('error', () => sink.abort());
}

/** The request handler: relays one exchange, and records a copy of it after each chunk is sent on. */
function relay(
  options: HttpProxyOptions,
  agent: HttpAgent,
): (req: IncomingMessage, res: ServerResponse) => void {
  const { upstream, capture } = options;
  const send = upstream.protocol === 'https:' ? httpsRequest : httpRequest;
  const sessions = new SessionRun();
  return (req, res) => {
    const head: RequestHead = {
      method: req.method ?? 'GET',
      path: req.url ?? '/',
      headers: req.headers,
    };
    const headers = forwardHeaders(req.headers, new Set(['host']));
    let recorded: RecordedRequest | undefined;
    const out = send(
      {
        protocol: upstream.protocol,
        hostname: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: head.path,
        agent,
        headers: { ...headers, host: upstream.host },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, forwardHeaders(answer.headers, new Set()));
        answer.pipe(res);
        if (capture !== undefined && recorded !== undefined) {
          const status = answer.statusCode ?? 0;
          feed(
            answer,
            recordAnswer(head, { status, headers: answer.headers }, capture, recorded, sessions),
          );
        }
      },
    );
    out.on('error', () => {
      if (!res.headersSent) res.writeHead(502).end();
      else res.destroy();
    });
    req.pipe(out);
    res.on('close', () => {
      // The client went away (a cancelled stream): so does the upstream request.
      if (!res.writableFinished) out.destroy();
    });
    // The copy, off the relay: `pipe` wrote each chunk on before these listeners run.
    if (capture !== undefined) {
      const request = recordRequest(head, capture, options.principal);
      recorded = request.recorded;
      feed(req, request.sink);
    }
  };
}

/** Starts the terminating relay; resolves once it listens. */
export async function startNodeHttpRelay(options: HttpProxyOptions): Promise<HttpProxy> {
  // Connections to the upstream are kept and reused: a new TCP connection per request would add
  // a handshake to every round trip.
  const agent = new (options.upstream.protocol === 'https:' ? HttpsAgent : HttpAgent)({
    keepAlive: true,
    noDelay: true,
  });
  const server = createServer({ noDelay: true }, relay(options, agent));
  return {
    url: await listenOn(server, options.host, options.port),
    server,
    close: () =>
      new Promise<void>((resolve) => {
        agent.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** `http://host:port` for a listening address (an IPv6 host in brackets). */
const listenUrl = (host: string, port: number): string =>
  `http://${host.includes(':') ? `[${host}]` : host}:${port}`;

/** Listens on `host:port` (port 0: any free one); resolves with the address as a URL. */
export async function listenOn(server: NetServer, host: string, port: number): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return listenUrl(host, (server.address() as AddressInfo).port);
}
