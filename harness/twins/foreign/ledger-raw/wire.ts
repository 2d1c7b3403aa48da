/**
 * `ledger-raw` on the wire, by hand: plain `node:http` (`POST /rpc`, one JSON body in, one out) and
 * newline-delimited JSON on stdio. No SDK anywhere.
 *
 * Hand-rolled does not mean careless: HTTP listens on 127.0.0.1 only, checks `Host` and `Origin`
 * against loopback names (DNS rebinding), caps the body before parsing, and answers 401 without a
 * bearer token; stdio drops lines over the cap instead of buffering them.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createInterface } from 'node:readline';
import { limitLines } from '../../../../src/fixture/line-limit.js';
import type { RunningTwin } from '../twin.js';
import { createLedgerRpc, type LedgerRawVariant, type RpcResponse } from './rpc.js';
import { listenOnLoopback } from '../host.js';

/** The one path served over HTTP. */
export const RPC_PATH = '/rpc';
/** Largest HTTP body or stdio line accepted, in bytes. */
export const MAX_MESSAGE_BYTES = 64 * 1024;
/** The `_meta` key naming the caller over stdio. */
export const PRINCIPAL_KEY = 'io.modelcontextprotocol/principal';
/** Longest principal accepted (bearer token or `_meta` value). */
export const MAX_PRINCIPAL_CHARS = 256;
/** The caller of a stdio request that names none. */
export const NOBODY = 'anonymous';

const PARSE_ERROR = { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'parse error' } };
const TOO_LARGE = {
  jsonrpc: '2.0',
  id: null,
  error: { code: -32600, message: 'message too large' },
};

function reply(res: ServerResponse, status: number, body?: unknown, headers = {}): void {
  if (body === undefined) {
    res.writeHead(status, headers).end();
    return;
  }
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

/** The caller named by `Authorization: Bearer <token>`, or `undefined`. */
export function bearer(header: string | undefined): string | undefined {
  const match = /^Bearer ([\x21-\x7e]+)$/.exec(header ?? '');
  const token = match?.[1];
  return token !== undefined && token.length <= MAX_PRINCIPAL_CHARS ? token : undefined;
}

function loopback(value: string | undefined, port: number, scheme: string): boolean {
  return value === `${scheme}127.0.0.1:${port}` || value === `${scheme}localhost:${port}`;
}

/** Read the body, refusing it (`undefined`) once it passes the cap. */
function readBody(req: IncomingMessage): Promise<string | undefined> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > MAX_MESSAGE_BYTES) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_MESSAGE_BYTES) {
        req.removeAllListeners('data');
        req.resume();
        resolve(undefined);
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', () => resolve(undefined));
  });
}

/** Start `ledger-raw` over HTTP on 127.0.0.1, any free port. */
export async function startLedgerHttp(
  variant: LedgerRawVariant,
  log: (line: string) => void = () => undefined,
): Promise<RunningTwin> {
  const rpc = createLedgerRpc(variant, log);
  let port = 0;
  const server = createServer((req, res) => {
    void (async () => {
      if (!loopback(req.headers.host, port, '')) return reply(res, 403, { error: 'bad host' });
      const origin = req.headers.origin;
      if (origin !== undefined && !loopback(origin, port, 'http://')) {
        return reply(res, 403, { error: 'bad origin' });
      }
      if (new URL(req.url ?? '/', 'http://127.0.0.1').pathname !== RPC_PATH) {
        return reply(res, 404, { error: 'not found' });
      }
      if (req.method !== 'POST') return reply(res, 405, { error: 'POST only' }, { allow: 'POST' });
      const principal = bearer(req.headers.authorization);
      if (principal === undefined) {
        return reply(res, 401, { error: 'unauthorized' }, { 'www-authenticate': 'Bearer' });
      }
      const body = await readBody(req);
      if (body === undefined) return reply(res, 413, TOO_LARGE);
      let message: unknown;
      try {
        message = JSON.parse(body);
      } catch {
        return reply(res, 200, PARSE_ERROR);
      }
      const answer = await rpc.handle(message, principal);
      return answer === undefined ? reply(res, 202) : reply(res, 200, answer);
    })();
  });
  port = await listenOnLoopback(server);
  return {
    url: `http://127.0.0.1:${port}${RPC_PATH}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The caller a stdio message names in `params._meta`, or {@link NOBODY}. */
export function metaPrincipal(message: unknown): string {
  const params = (message as { params?: { _meta?: Record<string, unknown> } } | null)?.params;
  const value = typeof params === 'object' && params !== null ? params._meta?.[PRINCIPAL_KEY] : '';
  return typeof value === 'string' && value.length > 0 && value.length <= MAX_PRINCIPAL_CHARS
    ? value
    : NOBODY;
}

/** Serve `ledger-raw` on stdin/stdout until stdin closes. */
export function serveLedgerStdio(
  variant: LedgerRawVariant,
  log: (line: string) => void,
): Promise<void> {
  const rpc = createLedgerRpc(variant, log);
  const send = (message: RpcResponse | typeof PARSE_ERROR): void =>
    void process.stdout.write(`${JSON.stringify(message)}\n`);
  const input = process.stdin.pipe(
    limitLines(MAX_MESSAGE_BYTES, () => {
      log('[ledger-raw] dropped an oversized line');
      send(TOO_LARGE);
    }),
  );
  const lines = createInterface({ input, crlfDelay: Infinity });
  lines.on('line', (line) => {
    if (line.trim() === '') return;
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      send(PARSE_ERROR);
      return;
    }
    // Answers go out as they are ready; JSON-RPC ids pair them with their requests.
    void rpc.handle(message, metaPrincipal(message)).then((answer) => {
      if (answer !== undefined) send(answer);
    });
  });
  process.stderr.write('[fixture] ready\n');
  return new Promise((resolve) => lines.once('close', () => resolve()));
}
