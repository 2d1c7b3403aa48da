/**
 * `inspector-echo` on the wire. HTTP is served the web-standard way: each Node request becomes a
 * `Request` (`toWebRequest`, body capped), passes the SDK's `Host`/`Origin` checks and its bearer
 * gate (`requireBearerAuth`), and goes to `createMcpHandler(...).fetch`, which answers every request
 * as a request-scoped SSE stream. stdio is the SDK's `serveStdio` behind a line cap.
 */
import { createServer, type ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import {
  createMcpHandler,
  hostHeaderValidationResponse,
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  OAuthError,
  OAuthErrorCode,
  originValidationResponse,
  requireBearerAuth,
  type AuthInfo,
} from '@modelcontextprotocol/server';
import { serveStdio, StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { toWebRequest } from '@modelcontextprotocol/node';
import { limitLines } from '../../../../src/fixture/line-limit.js';
import type { RunningTwin } from '../twin.js';
import type { InspectorEchoVariant } from './render.js';
import { inspectorEchoFactory, inspectorGuard } from './server.js';
import { listenOnLoopback } from '../host.js';

/** The path served over HTTP. */
export const INSPECTOR_PATH = '/inspector';
/** Largest HTTP body or stdio line accepted, in bytes. */
export const MAX_MESSAGE_BYTES = 128 * 1024;
const MAX_TOKEN_CHARS = 256;

/** Every well-formed bearer token is a principal of that name (the twin verifies nothing else). */
const gate = requireBearerAuth({
  verifier: {
    async verifyAccessToken(token: string): Promise<AuthInfo> {
      if (token.length > MAX_TOKEN_CHARS || !/^[\x21-\x7e]+$/.test(token)) {
        throw new OAuthError(OAuthErrorCode.InvalidToken, 'unusable token');
      }
      return {
        token,
        clientId: token,
        scopes: [],
        expiresAt: Math.floor(Date.now() / 1000) + 3600,
        // The token names its user: the guard of the sealed variant binds issuer and subject.
        extra: { iss: 'inspector-echo', sub: token },
      };
    },
  },
});

async function send(res: ServerResponse, response: Response): Promise<void> {
  res.writeHead(response.status, Object.fromEntries(response.headers));
  if (response.body === null) {
    res.end();
    return;
  }
  const body = Readable.fromWeb(response.body as unknown as WebReadableStream<Uint8Array>);
  body.on('error', () => res.destroy());
  body.pipe(res);
}

/** Start `inspector-echo` over HTTP on 127.0.0.1, any free port. */
export async function startInspectorHttp(
  variant: InspectorEchoVariant,
  log: (line: string) => void = () => undefined,
): Promise<RunningTwin> {
  const guard = inspectorGuard(variant, 'http', log);
  const handler = createMcpHandler(inspectorEchoFactory(variant, guard), {
    legacy: 'reject',
    responseMode: 'sse',
    maxRequestBodySize: MAX_MESSAGE_BYTES,
    onerror: (error) => log(`[inspector-echo] ${error.name}`),
  });
  const serve = async (request: Request): Promise<Response> => {
    if (new URL(request.url).pathname !== INSPECTOR_PATH) {
      return new Response('not found', { status: 404 });
    }
    const refused =
      hostHeaderValidationResponse(request, localhostAllowedHostnames()) ??
      originValidationResponse(request, localhostAllowedOrigins());
    if (refused !== undefined) return refused;
    const auth = await gate(request);
    if (auth instanceof Response) return auth;
    return handler.fetch(request, { authInfo: auth });
  };
  const server = createServer((req, res) => {
    void (async () => {
      let request: Request;
      try {
        request = await toWebRequest(req, undefined, { maxRequestBodySize: MAX_MESSAGE_BYTES });
      } catch (error) {
        const status = (error as { status?: unknown }).status === 413 ? 413 : 400;
        res.writeHead(status, { 'content-type': 'text/plain' }).end('request refused');
        return;
      }
      await send(res, await serve(request));
    })().catch((error: unknown) => {
      log(`[inspector-echo] ${(error as Error).name}`);
      if (!res.headersSent) res.writeHead(500).end();
      else res.destroy();
    });
  });
  const port = await listenOnLoopback(server);
  return {
    url: `http://127.0.0.1:${port}${INSPECTOR_PATH}`,
    async close() {
      await handler.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Serve `inspector-echo` on stdin/stdout until stdin closes. */
export function serveInspectorStdio(
  variant: InspectorEchoVariant,
  log: (line: string) => void,
): Promise<void> {
  const input = process.stdin.pipe(
    limitLines(MAX_MESSAGE_BYTES, () => {
      log('[inspector-echo] dropped an oversized line');
      process.stdout.write(
        `${JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'message too large' } })}\n`,
      );
    }),
  );
  const transport = new StdioServerTransport(input, process.stdout, {
    maxBufferSize: 4 * MAX_MESSAGE_BYTES,
  });
  const guard = inspectorGuard(variant, 'stdio', log);
  const served = serveStdio(inspectorEchoFactory(variant, guard), {
    legacy: 'reject',
    transport,
    onerror: (error) => log(`[inspector-echo] ${error.name}`),
  });
  const ended = new Promise<void>((resolve) => input.once('end', () => resolve()));
  process.stderr.write('[fixture] ready\n');
  return ended.then(() => served.close());
}
