/**
 * Serving a foreign twin: Streamable HTTP on 127.0.0.1 and stdio, hardened the boring ways.
 *
 * HTTP: loopback only; `Host` must name localhost and an `Origin`, when present, a localhost origin
 * (403 otherwise: the spec's MUST, which the SDK's handler does not check); bodies capped (413); the
 * identity carrier (a bearer token or a named header) is checked before the SDK sees the request
 * (401 without one) and handed on as `AuthInfo`. stdio: lines over the cap are dropped, not fatal.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  createMcpHandler,
  type AuthInfo,
  type McpServerFactory,
} from '@modelcontextprotocol/server';
import { serveStdio, StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { authInfoFor, bearerPrincipal } from '../../../src/fixture/identity.js';
import { limitLines } from '../../../src/fixture/line-limit.js';
import { errorLine, type FixtureLog } from '../../../src/fixture/log.js';
import {
  MAX_STDIO_MESSAGE_BYTES,
  READY_LINE,
  TOO_LARGE_ANSWER,
} from '../../../src/fixture/stdio.js';
import { identityOf } from './caller.js';
import type { IdentityCarrier, RunningTwin } from './twin.js';

/** Largest HTTP request body a twin accepts, in bytes. */
export const MAX_TWIN_BODY_BYTES = 128 * 1024;

/** Options of {@link hostHttp}. */
export interface HostHttpOptions {
  /** Builds one SDK server per request. */
  factory: McpServerFactory;
  /** Where the identity comes from (an `env` carrier means a bearer token over HTTP). */
  carrier: IdentityCarrier;
  /** The endpoint path, e.g. `/api/mcp`. Every other path is 404. */
  path: string;
  /** Diagnostics; default none. */
  log?: FixtureLog;
}

function answer(res: ServerResponse, status: number, body: object, headers = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

/** The identity a request carries, or `undefined` (then 401). */
function identityFrom(req: IncomingMessage, carrier: IdentityCarrier): string | undefined {
  if (carrier.kind === 'header') {
    const value = req.headers[carrier.name.toLowerCase()];
    return identityOf(typeof value === 'string' ? value.trim() : undefined);
  }
  return bearerPrincipal(req.headers.authorization);
}

function refuseUnauthenticated(res: ServerResponse, carrier: IdentityCarrier): void {
  if (carrier.kind === 'header') {
    return answer(res, 401, { error: 'unauthorized', message: `${carrier.name} header required` });
  }
  answer(
    res,
    401,
    { error: 'invalid_token', error_description: 'Missing or invalid bearer token' },
    { 'www-authenticate': 'Bearer error="invalid_token"' },
  );
}

/**
 * Serve `factory` on 127.0.0.1, any free port; resolves once listening. The SDK's Node.js adapter
 * is loaded here, not at the top: a twin's stdio child never needs it, and starts that much sooner.
 */
export async function hostHttp(options: HostHttpOptions): Promise<RunningTwin> {
  const { localhostHostValidation, localhostOriginValidation, toNodeHandler } =
    await import('@modelcontextprotocol/node');
  const log = options.log ?? (() => undefined);
  const onerror = (error: Error): void => log(`[fixture] error: ${errorLine(error)}`);
  const mcp = createMcpHandler(options.factory, {
    legacy: 'reject',
    maxRequestBodySize: MAX_TWIN_BODY_BYTES,
    onerror,
  });
  const node = toNodeHandler(mcp, { maxRequestBodySize: MAX_TWIN_BODY_BYTES, onerror });
  const validHost = localhostHostValidation();
  const validOrigin = localhostOriginValidation();

  const server = createServer((req: IncomingMessage & { auth?: AuthInfo }, res) => {
    const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
    if (path !== options.path) return answer(res, 404, { error: 'not_found' });
    if (!validHost(req, res) || !validOrigin(req, res)) return;
    const identity = identityFrom(req, options.carrier);
    if (identity === undefined) return refuseUnauthenticated(res, options.carrier);
    req.auth = authInfoFor(identity);
    void node(req, res);
  });
  const port = await listenOnLoopback(server);
  return {
    url: `http://127.0.0.1:${port}${options.path}`,
    async close() {
      await mcp.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * Serve `factory` on this process's stdin/stdout until stdin ends. Writes the ready line to stderr
 * once it reads stdin; `log` gets diagnostics (stderr in the child).
 */
export async function hostStdio(factory: McpServerFactory, log: FixtureLog): Promise<void> {
  const input = process.stdin.pipe(
    limitLines(MAX_STDIO_MESSAGE_BYTES, () => {
      log(`[fixture] error: dropped a message over ${MAX_STDIO_MESSAGE_BYTES} bytes`);
      process.stdout.write(`${TOO_LARGE_ANSWER}\n`);
    }),
  );
  const ended = new Promise<void>((resolve) => {
    input.once('end', resolve);
    input.once('close', resolve);
  });
  // The SDK's own cap stays as a backstop above ours: one read may carry many complete lines.
  const transport = new StdioServerTransport(input, process.stdout, {
    maxBufferSize: 4 * MAX_STDIO_MESSAGE_BYTES,
  });
  const handle = serveStdio(factory, {
    legacy: 'reject',
    transport,
    onerror: (error) => log(`[fixture] error: ${errorLine(error)}`),
  });
  process.stderr.write(`${READY_LINE}\n`);
  await ended;
  await handle.close().catch(() => undefined);
}

/**
 * Listens on a free loopback port with the twins' request and header timeouts; resolves with the
 * port, or rejects with the listen error.
 */
export async function listenOnLoopback(server: Server): Promise<number> {
  server.requestTimeout = 30_000;
  server.headersTimeout = 10_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  return (server.address() as AddressInfo).port;
}
