/**
 * The SDK v1 task fixture: a 2025-11-25 server written with the official SDK's 1.x package and its
 * experimental tasks (`server.ts`), on stateless Streamable HTTP and on stdio, with one variant per
 * store (`store.ts`). It is the real package, not a copy: what it shows of the SDK's own store is
 * what a server built from the SDK's examples ships.
 *
 * With `sdk-store`, `handle/task-cross-principal` must be CONFIRMED (B's `tasks/result` answers A's
 * report, A's canary in it); with `bound-store` REFUTED. `handle/task-guessable` is REFUTED on both
 * (32 random hex digits; the SDK store serves B, which is the other probe's finding).
 *
 * The caller is the bearer token over HTTP and the scanner's `_meta` principal over stdio, as the
 * other task fixtures read them; it reaches the store through `principals` (`store.ts`).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Verdict } from '../../../src/probe/model/probe.js';
import { PRINCIPAL_META_KEY } from '../../../src/sdk/principal.js';
import { identityOf, GUEST } from '../foreign/caller.js';
import { MAX_TWIN_BODY_BYTES } from '../foreign/host.js';
import { variantIn, type ForeignTwin, type RunningTwin } from '../foreign/twin.js';
import { bearerPrincipal } from '../../../src/fixture/identity.js';
import { limitLines } from '../../../src/fixture/line-limit.js';
import { quietLog, stderrLog, type FixtureLog } from '../../../src/fixture/log.js';
import {
  MAX_STDIO_MESSAGE_BYTES,
  READY_LINE,
  TOO_LARGE_ANSWER,
} from '../../../src/fixture/stdio.js';
import { v1TaskServer } from './server.js';
import { principals, V1_STORES, v1TaskStore } from './store.js';
import { listenOnLoopback } from '../foreign/host.js';
import { nodeEntry } from '../../node-entry.js';

export const V1_VARIANTS = V1_STORES;
export type V1Variant = (typeof V1_VARIANTS)[number];
export const V1_PATH = '/mcp';

const v = (cross: Verdict): Record<string, Verdict> => ({
  'handle/task-cross-principal': cross,
  'handle/task-guessable': 'refuted',
});

/** The verdict a correct scanner gives, per variant. */
export const V1_EXPECTED: Readonly<Record<V1Variant, Readonly<Record<string, Verdict>>>> = {
  'sdk-store': v('confirmed'),
  'bound-store': v('refuted'),
};

function answer(res: ServerResponse, status: number, body: object, headers = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

/** The request body, parsed; `undefined` after answering 413 or 400. */
async function bodyOf(req: IncomingMessage, res: ServerResponse): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_TWIN_BODY_BYTES) {
      answer(res, 413, { error: 'payload_too_large' });
      req.destroy();
      return undefined;
    }
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  } catch {
    answer(res, 400, { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
    return undefined;
  }
}

/**
 * Stateless Streamable HTTP on 127.0.0.1, any free port, as the SDK v1 examples serve it: a new
 * server and transport per POST, the one store shared. The bearer token is the principal (401
 * without one); GET and DELETE are 405 (no sessions, no stream).
 */
export async function hostV1Http(
  variant: string,
  log: FixtureLog = quietLog,
): Promise<RunningTwin> {
  const store = v1TaskStore(variantIn('tasks-v1', V1_VARIANTS, variant), log);
  const http = createServer((req, res) => {
    void (async () => {
      if (new URL(req.url ?? '/', 'http://127.0.0.1').pathname !== V1_PATH)
        return answer(res, 404, { error: 'not_found' });
      if (req.method !== 'POST')
        return answer(res, 405, { error: 'method_not_allowed' }, { allow: 'POST' });
      const principal = bearerPrincipal(req.headers.authorization);
      if (principal === undefined)
        return answer(
          res,
          401,
          { error: 'invalid_token', error_description: 'Missing or invalid bearer token' },
          { 'www-authenticate': 'Bearer error="invalid_token"' },
        );
      const body = await bodyOf(req, res);
      if (body === undefined) return;
      const server = v1TaskServer(store, log);
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
      });
      res.on('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await principals.run(principal, () => transport.handleRequest(req, res, body));
    })().catch((error: unknown) => {
      log(`[tasks-v1] error: ${(error as Error).message}`);
      if (!res.headersSent) answer(res, 500, { error: 'internal' });
      else res.destroy();
    });
  });
  const port = await listenOnLoopback(http);
  return {
    url: `http://127.0.0.1:${port}${V1_PATH}`,
    async close() {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

/** The principal a stdio message names in `_meta` (the scanner's key), else the guest. */
function stdioPrincipal(message: JSONRPCMessage): string {
  const params = 'params' in message ? message.params : undefined;
  const meta = params?.['_meta'] as Record<string, unknown> | undefined;
  return identityOf(meta?.[PRINCIPAL_META_KEY]) ?? GUEST;
}

/**
 * One SDK v1 server on this process's stdin/stdout until stdin ends. Each message is served as the
 * principal its `_meta` names; lines over the cap are dropped, not fatal.
 */
export async function serveV1Stdio(variant: string, log: FixtureLog = stderrLog): Promise<void> {
  const store = v1TaskStore(variantIn('tasks-v1', V1_VARIANTS, variant), log);
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
  const server = v1TaskServer(store, log);
  const transport = new StdioServerTransport(input, process.stdout);
  await server.connect(transport);
  // The SDK set its own handler on connect; each message now runs as its principal.
  const handle = transport.onmessage;
  transport.onmessage = (message: JSONRPCMessage) =>
    principals.run(stdioPrincipal(message), () => handle?.(message));
  process.stderr.write(`${READY_LINE}\n`);
  await ended;
  await server.close().catch(() => undefined);
}

/** The command that serves `variant` over stdio, built, or from source (see node-entry.ts). */
export function v1StdioCommand(variant: string): { command: string; args: string[] } {
  return {
    command: process.execPath,
    args: [...nodeEntry(import.meta.url, './main.js'), '--variant', variant],
  };
}

export const tasksV1Fixture: ForeignTwin = {
  id: 'tasks-v1',
  summary: "An SDK v1 (2025-11-25) experimental task server, on the SDK's own task store",
  variants: V1_VARIANTS,
  transports: ['http', 'stdio'],
  identity: { http: { kind: 'bearer' }, stdio: { kind: 'bearer' } },
  expected: V1_EXPECTED,
  startHttp: (variant) => hostV1Http(variant),
  serveStdio: (variant) => serveV1Stdio(variant),
  stdioCommand: v1StdioCommand,
};
