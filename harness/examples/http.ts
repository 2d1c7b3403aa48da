/**
 * Streamable HTTP for the example: localhost Host/Origin checks, optional bearer auth, and a fresh
 * guarded server per request.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  createMcpHandler,
  OAuthError,
  OAuthErrorCode,
  requireBearerAuth,
  type AuthInfo,
  type OAuthTokenVerifier,
} from '@modelcontextprotocol/server';
import {
  localhostHostValidation,
  localhostOriginValidation,
  toNodeHandler,
} from '@modelcontextprotocol/node';
import type { StateGuard } from '../../src/sdk/index.js';
import { createReportServer, type ReportHooks } from './create-report.js';

/** Options of {@link createReportHttpListener}. */
export interface ReportHttpOptions {
  guard: StateGuard;
  /** Verifies bearer tokens; without it the endpoint is unauthenticated (no principal). */
  verifier?: OAuthTokenVerifier;
  hooks?: ReportHooks;
}

/**
 * A verifier for demos and tests: each listed token is its own user (client id and subject), issued
 * by `stateguard-demo`, valid for an hour. Never use it in production.
 */
export function demoVerifier(tokens: readonly string[]): OAuthTokenVerifier {
  const known = new Set(tokens);
  return {
    async verifyAccessToken(token): Promise<AuthInfo> {
      if (!known.has(token)) throw new OAuthError(OAuthErrorCode.InvalidToken, 'unknown token');
      return {
        token,
        clientId: token,
        scopes: [],
        // The SDK rejects tokens without an expiry.
        expiresAt: Math.floor(Date.now() / 1000) + 3600,
        extra: { sub: token, iss: 'stateguard-demo' },
      };
    },
  };
}

function webHeaders(req: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === 'string') headers.set(name, value);
    else if (Array.isArray(value)) for (const v of value) headers.append(name, v);
  }
  return headers;
}

async function sendWebResponse(res: ServerResponse, response: Response): Promise<void> {
  res.writeHead(response.status, Object.fromEntries(response.headers));
  res.end(Buffer.from(await response.arrayBuffer()));
}

/** A Node request listener serving the example at any path (conventionally `/mcp`). */
export function createReportHttpListener(
  options: ReportHttpOptions,
): (req: IncomingMessage, res: ServerResponse) => void {
  const { guard, verifier, hooks } = options;
  const mcp = toNodeHandler(createMcpHandler(() => createReportServer(guard, hooks)));
  const checkAuth = verifier === undefined ? undefined : requireBearerAuth({ verifier });
  const validHost = localhostHostValidation();
  const validOrigin = localhostOriginValidation();

  const serve = async (req: IncomingMessage & { auth?: AuthInfo }, res: ServerResponse) => {
    if (!validHost(req, res) || !validOrigin(req, res)) return;
    if (checkAuth !== undefined) {
      // Only the headers matter to the bearer check; the body stays on the Node request.
      const outcome = await checkAuth(
        new Request(`http://localhost${req.url ?? '/'}`, { headers: webHeaders(req) }),
      );
      if (outcome instanceof Response) return sendWebResponse(res, outcome);
      req.auth = outcome;
    }
    await mcp(req, res);
  };
  return (req, res) => {
    serve(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  };
}
