/**
 * Which session a request of `session-notes` lands in: the part of a 2025-11-25 server where the
 * session advisories live. One SDK `WebStandardStreamableHTTPServerTransport` per session, found by
 * the `Mcp-Session-Id` the request presents, three ways:
 *
 * - `fixed`: stateguard's `createSessionBinding`: an id opens its session only for the principal
 *   that created it; another principal's id, and no id, get the answers of an unknown id and of a
 *   missing one, exactly as the SDK words them.
 * - `unbound-sessions`: a map from id to session, as most servers write it: whoever presents an id
 *   is served inside that session.
 * - `only-session-fallback`: ids are bound as in `fixed`, but a request without one is attributed to
 *   the only live session, a convenience for clients that drop the header.
 * - `crashing-lookup`: bound as in `fixed`, but a lookup that finds nothing crashes (HTTP 500, no
 *   body) instead of answering 404: no decision, which a scanner must never read as a refusal.
 */
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import type { McpServer } from '@modelcontextprotocol/server';
import { createSessionBinding } from '../../../../src/bind/session.js';

/** The three ways of finding a session. */
export const ROUTINGS = [
  'fixed',
  'unbound-sessions',
  'only-session-fallback',
  'crashing-lookup',
] as const;
/** One of {@link ROUTINGS}. */
export type Routing = (typeof ROUTINGS)[number];

/**
 * Most sessions the fixture holds at once. Where ids are bound, the binding decides which session
 * ends to make room (never another principal's while the opener holds the most); `unbound-sessions`
 * ends the oldest, whoever opened it.
 */
const MAX_SESSIONS = 200;

// The SDK's own words for a missing and an unknown session id, so every refusal reads as the SDK's.
const MISSING = { code: -32000, message: 'Bad Request: Mcp-Session-Id header is required' };
const UNKNOWN = { code: -32001, message: 'Session not found' };

function refusal(status: number, error: { code: number; message: string }): Response {
  return new Response(JSON.stringify({ jsonrpc: '2.0', error, id: null }), {
    status,
    headers: { 'content-type': 'application/json' },
  });
}

const isInitialize = (body: unknown): boolean =>
  typeof body === 'object' &&
  body !== null &&
  (body as { method?: unknown }).method === 'initialize';

/** A session router: hands each request to the session it belongs to, or refuses it. */
export interface SessionRouter {
  handle(request: Request, principal: string): Promise<Response>;
  close(): Promise<void>;
}

/** A router in `routing`; `serverFor` builds the SDK server of a session its principal opens. */
export function createSessionRouter(
  routing: Routing,
  serverFor: (owner: string) => McpServer,
): SessionRouter {
  // Every live session by id: what `unbound-sessions` routes by, and what the fallback counts.
  const live = new Map<string, WebStandardStreamableHTTPServerTransport>();
  const bound = createSessionBinding<WebStandardStreamableHTTPServerTransport>({
    maxSessions: MAX_SESSIONS,
    // A session the binding lets go of is closed and forgotten here too.
    onEvicted: (transport) => {
      if (transport.sessionId !== undefined) live.delete(transport.sessionId);
      void transport.close().catch(() => undefined);
    },
  });

  async function open(request: Request, body: unknown, owner: string): Promise<Response> {
    const transport: WebStandardStreamableHTTPServerTransport =
      new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: () => bound.mintId(),
        onsessioninitialized: (id) => {
          while (routing === 'unbound-sessions' && live.size >= MAX_SESSIONS) {
            const oldest = live.keys().next().value as string;
            void live.get(oldest)?.close();
            live.delete(oldest);
          }
          live.set(id, transport);
          bound.bind(id, owner, transport);
        },
        onsessionclosed: (id) => {
          live.delete(id);
          bound.unbind(id, owner);
        },
      });
    await serverFor(owner).connect(transport);
    return transport.handleRequest(request, { parsedBody: body });
  }

  /** The session this request is served in, or the refusal it gets. */
  function find(
    sid: string | null,
    principal: string,
  ): { transport: WebStandardStreamableHTTPServerTransport; sid: string } | Response {
    if (routing === 'unbound-sessions') {
      if (sid === null) return refusal(400, MISSING);
      const transport = live.get(sid);
      return transport === undefined ? refusal(404, UNKNOWN) : { transport, sid };
    }
    if (sid === null) {
      const [only] = live.size === 1 ? [...live.entries()] : [];
      if (routing === 'only-session-fallback' && only !== undefined)
        return { sid: only[0], transport: only[1] };
      return refusal(400, MISSING);
    }
    const transport = bound.resolve(sid, principal);
    if (transport === undefined && routing === 'crashing-lookup')
      return new Response(null, { status: 500 });
    // Another principal's id gets exactly the answer of an id nobody was handed.
    return transport === undefined ? refusal(404, UNKNOWN) : { transport, sid };
  }

  return {
    async handle(request, principal) {
      let body: unknown;
      if (request.method === 'POST') {
        try {
          body = await request.json();
        } catch {
          return refusal(400, { code: -32700, message: 'Parse error' });
        }
      }
      const sid = request.headers.get('mcp-session-id');
      if (request.method === 'POST' && isInitialize(body) && sid === null)
        return open(request, body, principal);
      const found = find(sid, principal);
      if (found instanceof Response) return found;
      // The fallback's request reaches the SDK as if it had named the session itself.
      const headers = new Headers(request.headers);
      headers.set('mcp-session-id', found.sid);
      const forwarded = new Request(request.url, {
        method: request.method,
        headers,
        ...(request.method === 'POST' ? { body: JSON.stringify(body) } : {}),
        signal: request.signal,
      });
      return found.transport.handleRequest(forwarded, { parsedBody: body });
    },
    async close() {
      await Promise.all([...live.values()].map((t) => t.close().catch(() => undefined)));
      live.clear();
    },
  };
}
