/**
 * A small round-robin HTTP proxy in front of a fleet: each POST goes to the next instance, so every
 * round of a flow may land on any of them, as behind a load balancer without affinity.
 *
 * Like an ordinary balancer it passes a request on to the next instance only when the connection
 * was refused (nothing was sent, so nothing can have run); any other upstream failure (a reset
 * mid-request, an instance killed while it worked) is answered `502`, and the client decides what
 * to do, because the request may have run. A request may pin an instance with the
 * `x-soak-instance` header (the soak's replay injection); a pinned request is never moved.
 */
import {
  Agent,
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';

/** The header that pins a request to one instance (by index). */
export const PIN_HEADER = 'x-soak-instance';

const MAX_BODY_BYTES = 1 << 20;
const UPSTREAM_TIMEOUT_MS = 30_000;

/** A running proxy. */
export interface Proxy {
  /** `http://127.0.0.1:<port>/mcp` */
  readonly url: string;
  /** Answers received from each instance (any status), counted as they arrive. */
  readonly served: readonly number[];
  /** Requests answered `502`/`504` by the proxy itself. */
  readonly failed: { value: number };
  close(): Promise<void>;
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) req.destroy(new Error('body too large'));
      else chunks.push(chunk);
    });
    req.once('end', () => resolve(Buffer.concat(chunks)));
    req.once('error', reject);
  });
}

/** Start a proxy on a free loopback port in front of `ports`. */
export async function startProxy(ports: readonly number[]): Promise<Proxy> {
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const served = ports.map(() => 0);
  const failed = { value: 0 };
  let next = 0;

  const forward = (
    req: IncomingMessage,
    res: ServerResponse,
    body: Buffer,
    index: number,
    triesLeft: number,
    pinned: boolean,
  ): void => {
    const headers: OutgoingHttpHeaders = { ...req.headers, host: `127.0.0.1:${ports[index]}` };
    delete headers[PIN_HEADER];
    headers['content-length'] = String(body.length);
    const upstream = httpRequest({
      host: '127.0.0.1',
      port: ports[index],
      method: req.method,
      path: req.url,
      headers,
      agent,
      timeout: UPSTREAM_TIMEOUT_MS,
    });
    upstream.once('response', (answer) => {
      served[index] = (served[index] ?? 0) + 1;
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
      // An instance killed mid-answer: the client must see a broken answer, not a short one.
      answer.once('error', () => res.destroy());
      answer.once('aborted', () => res.destroy());
    });
    upstream.once('timeout', () => upstream.destroy(new Error('upstream timed out')));
    upstream.once('error', (error: NodeJS.ErrnoException) => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      if (error.code === 'ECONNREFUSED' && !pinned && triesLeft > 1) {
        forward(req, res, body, (index + 1) % ports.length, triesLeft - 1, false);
        return;
      }
      failed.value += 1;
      res.writeHead(error.message === 'upstream timed out' ? 504 : 502, {
        'content-type': 'text/plain',
      });
      res.end(`soak proxy: upstream ${index} failed (${error.code ?? error.message})`);
    });
    upstream.end(body);
  };

  const server = createServer((req, res) => {
    readBody(req).then(
      (body) => {
        const pin = req.headers[PIN_HEADER];
        const pinned = typeof pin === 'string' && /^\d+$/.test(pin) && Number(pin) < ports.length;
        const index = pinned ? Number(pin) : next++ % ports.length;
        forward(req, res, body, index, ports.length, pinned);
      },
      () => res.destroy(),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    served,
    failed,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      agent.destroy();
    },
  };
}
