/**
 * One HTTP POST over `node:http`/`node:https`, on a connection chosen by policy: a fresh one per
 * exchange, or a kept-alive one that is given up once it stalls.
 *
 * Why not `fetch`: a server that writes the response headers and the body in two writes without
 * `TCP_NODELAY` (Python's `http.server`, anything that flushes headers first) stalls a kept-alive
 * connection. Its Nagle algorithm holds the body until our delayed ACK of the headers, about 40 ms,
 * on every other exchange or every one, and `fetch` offers no say over connection reuse. A fresh
 * connection never stalls (the kernel acknowledges at once while a connection is young) and costs
 * one loopback handshake, a fraction of a millisecond. Far away, a handshake (and TLS) costs more
 * than reuse saves, so reuse is kept there until a stall is seen.
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { HttpTls } from '../model/target.js';
import type { ConnectionPolicy } from '../model/connection-policy.js';

// The policies live on their own (the model's target.ts names one); importers keep this path.
export { CONNECTION_POLICIES, type ConnectionPolicy } from '../model/connection-policy.js';

/**
 * A pause this long inside one plain (non-SSE) answer on a reused connection reads as a Nagle stall:
 * the delayed ACK it waits for is 40 ms on Linux and longer elsewhere. A server that pauses this long
 * for its own reasons only costs us later handshakes, never a verdict.
 */
export const STALL_GAP_MS = 25;

/** What came back: status, headers, the body as it arrives, and the connection it came on. */
export interface HttpAnswer {
  readonly status: number;
  /** Lower-case names, sorted, repeated values joined with `, ` (as `fetch`'s `Headers`). */
  readonly headers: Record<string, string>;
  readonly body: AsyncIterable<Uint8Array>;
  /**
   * Stops reading. An unfinished answer drops its connection, which cancels the request
   * server-side; a finished one is drained, so a kept-alive connection serves the next exchange.
   */
  cancel(): void;
}

/** A connection pool with a policy. */
export interface HttpConnections {
  /** POSTs `body` to `url`; resolves once the headers arrived. Rejects like `fetch` on failure. */
  post(
    url: string,
    headers: Record<string, string>,
    body: string,
    signal: AbortSignal,
  ): Promise<HttpAnswer>;
  /**
   * A bodiless request (`GET` for a legacy server's event stream, `DELETE` to end a legacy session)
   * on a fresh connection: a stream held open must not take a kept-alive socket from the POSTs.
   */
  bodiless(
    method: 'GET' | 'DELETE',
    url: string,
    headers: Record<string, string>,
    signal: AbortSignal,
  ): Promise<HttpAnswer>;
  /** The policy in force now (`adaptive` turns `fresh` after a stall). */
  readonly mode: () => 'fresh' | 'reuse' | 'adaptive';
  close(): void;
}

/** True for `localhost`, 127.0.0.0/8 and ::1: a handshake there is nearly free. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return (
    host === 'localhost' ||
    host.endsWith('.localhost') ||
    host === '::1' ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host) ||
    /^::ffff:127\./.test(host)
  );
}

function joinHeaders(raw: IncomingMessage['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of Object.keys(raw).sort()) {
    const value = raw[name];
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

/** The connections of one channel: the two agents, and the policy as it stands now. */
interface Pool {
  readonly tls: boolean;
  /** The policy in force; `adaptive` turns `fresh` once a stall is seen. */
  mode: 'fresh' | 'reuse' | 'adaptive';
  readonly kept: HttpAgent;
  readonly fresh: HttpAgent;
}

/** A pool for `target` under `policy`, trusting what `tlsOptions` says over https. */
function createPool(target: URL, policy: ConnectionPolicy, tlsOptions: HttpTls): Pool {
  const tls = target.protocol === 'https:';
  const trust = tls
    ? {
        ...(tlsOptions.ca !== undefined ? { ca: tlsOptions.ca } : {}),
        ...(tlsOptions.insecure === true ? { rejectUnauthorized: false } : {}),
      }
    : {};
  const Agent = tls ? HttpsAgent : HttpAgent;
  return {
    tls,
    mode: policy === 'auto' ? (isLoopbackHost(target.hostname) ? 'fresh' : 'adaptive') : policy,
    kept: new Agent({ keepAlive: true, maxSockets: 4, ...trust }),
    // keepAlive false: `Connection: close` and a new socket each time; an https agent still resumes.
    fresh: new Agent({ keepAlive: false, ...trust }),
  };
}

/** Sends one request on a connection the pool's policy picks, and resolves at its headers. */
function send(
  pool: Pool,
  method: 'POST' | 'GET' | 'DELETE',
  to: string,
  headers: Record<string, string>,
  body: string | undefined,
  signal: AbortSignal,
): Promise<HttpAnswer> {
  const request = pool.tls ? httpsRequest : httpRequest;
  const watch = pool.mode === 'adaptive' && body !== undefined;
  return new Promise<HttpAnswer>((resolve, reject) => {
    const req = request(to, {
      method,
      headers:
        body === undefined
          ? headers
          : { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      agent: pool.mode === 'fresh' || body === undefined ? pool.fresh : pool.kept,
      signal,
    });
    // `on`, not `once`: an error after the answer began must not go unhandled (the body's
    // reader sees it).
    req.on('error', reject);
    req.once('response', (res) => {
      res.on('error', () => undefined);
      const headersAt = performance.now();
      const plain = !String(res.headers['content-type'] ?? '')
        .toLowerCase()
        .startsWith('text/event-stream');
      resolve({
        status: res.statusCode ?? 0,
        headers: joinHeaders(res.headers),
        body: watch && req.reusedSocket && plain ? watched(pool, res, headersAt) : res,
        cancel: () => {
          if (res.complete) res.resume();
          else res.destroy();
        },
      });
    });
    if (body === undefined) req.end();
    else req.end(body);
  });
}

/** Passes the body through, and turns the pool `fresh` if it arrived with a stall-sized gap. */
async function* watched(
  pool: Pool,
  res: IncomingMessage,
  headersAt: number,
): AsyncIterable<Uint8Array> {
  let last = headersAt;
  let widest = 0;
  for await (const chunk of res as AsyncIterable<Uint8Array>) {
    const now = performance.now();
    widest = Math.max(widest, now - last);
    last = now;
    yield chunk;
  }
  widest = Math.max(widest, performance.now() - last);
  // The kept sockets stay until close(): another exchange may still be reading on one.
  if (widest >= STALL_GAP_MS) pool.mode = 'fresh';
}

/** Creates the connections of one channel to `url`'s origin under `policy`. */
export function createHttpConnections(
  url: string,
  policy: ConnectionPolicy,
  tlsOptions: HttpTls = {},
): HttpConnections {
  const pool = createPool(new URL(url), policy, tlsOptions);
  return {
    post: (to, headers, body, signal) => send(pool, 'POST', to, headers, body, signal),
    bodiless: (method, to, headers, signal) => send(pool, method, to, headers, undefined, signal),
    mode: () => pool.mode,
    close() {
      pool.kept.destroy();
      pool.fresh.destroy();
    },
  };
}
