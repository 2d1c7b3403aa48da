/**
 * A complexity server on the wire: newline-delimited JSON on stdio, or `POST /rpc` over HTTP on
 * 127.0.0.1. Both accept messages up to {@link MAX_MESSAGE_BYTES}: the scanner sends the large
 * states back, and a server that refused them would spare the scanner the very work measured.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';
import { limitLines } from '../../../src/fixture/line-limit.js';
import { createComplexityRpc } from './rpc.js';
import type { ComplexityShape } from './shapes.js';

/** Largest message read, either transport. */
export const MAX_MESSAGE_BYTES = 32 * 1024 * 1024;
/** The `_meta` key naming the caller over stdio. */
const PRINCIPAL_KEY = 'io.modelcontextprotocol/principal';

const PARSE_ERROR = '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}';

/** The caller a stdio message names in `params._meta`, or `anonymous`. */
function metaPrincipal(message: unknown): string {
  const params = (message as { params?: { _meta?: Record<string, unknown> } } | null)?.params;
  const value = typeof params === 'object' && params !== null ? params._meta?.[PRINCIPAL_KEY] : '';
  return typeof value === 'string' && value.length > 0 ? value.slice(0, 256) : 'anonymous';
}

/** Serve `shape` at `bytes` on stdin/stdout until stdin closes. */
export function serveComplexityStdio(shape: ComplexityShape, bytes: number): Promise<void> {
  const rpc = createComplexityRpc(shape, bytes);
  const input = process.stdin.pipe(limitLines(MAX_MESSAGE_BYTES, () => undefined));
  const lines = createInterface({ input, crlfDelay: Infinity });
  lines.on('line', (line) => {
    if (line.trim() === '') return;
    let answer: string | undefined;
    try {
      const message: unknown = JSON.parse(line);
      answer = rpc.handle(message, metaPrincipal(message));
    } catch {
      answer = PARSE_ERROR;
    }
    if (answer !== undefined) process.stdout.write(`${answer}\n`);
  });
  process.stderr.write('[fixture] ready\n');
  return new Promise((resolve) => lines.once('close', () => resolve()));
}

/** A complexity server running over HTTP. */
export interface ComplexityHttp {
  readonly url: string;
  close(): Promise<void>;
}

/** Serve `shape` at `bytes` over HTTP on 127.0.0.1, any free port (bearer token = the caller). */
export async function startComplexityHttp(
  shape: ComplexityShape,
  bytes: number,
): Promise<ComplexityHttp> {
  const rpc = createComplexityRpc(shape, bytes);
  const server = createServer((req, res) => {
    const principal = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (req.method !== 'POST' || principal === undefined) {
      res.writeHead(principal === undefined ? 401 : 405).end();
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_MESSAGE_BYTES) chunks.push(chunk);
    });
    req.on('end', () => {
      let answer: string | undefined;
      try {
        answer = rpc.handle(JSON.parse(Buffer.concat(chunks).toString('utf8')), principal);
      } catch {
        answer = PARSE_ERROR;
      }
      if (answer === undefined) res.writeHead(202).end();
      else res.writeHead(200, { 'content-type': 'application/json' }).end(answer);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/rpc`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
