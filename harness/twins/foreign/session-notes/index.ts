/**
 * `session-notes`: a 2025-11-25 Streamable HTTP server with sessions, the shape most servers in use
 * still have. Each client's notes live in its `Mcp-Session-Id` session, nowhere else: the session
 * is the only state, so being served inside another client's session is the whole flaw.
 *
 * `jot({ note })` adds a note to the session and announces it on the session's GET event stream
 * (`notifications/message`); `recap()` lists the session's notes and names who opened it. The SDK v2
 * stateful transport serves each session; `router.ts` decides which session a request lands in
 * (`fixed`, `unbound-sessions`, `only-session-fallback`). HTTP only: sessions do not exist over
 * stdio. Loopback only, Host and Origin checked, bodies capped, 401 without a bearer token.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer, type AuthInfo } from '@modelcontextprotocol/server';
import {
  localhostHostValidation,
  localhostOriginValidation,
  toNodeHandler,
} from '@modelcontextprotocol/node';
import * as z from 'zod';
import { authInfoFor, bearerPrincipal } from '../../../../src/fixture/identity.js';
import { MAX_TWIN_BODY_BYTES } from '../host.js';
import { variantIn, type ForeignTwin, type IdentityCarrier, type RunningTwin } from '../twin.js';
import { createSessionRouter, ROUTINGS, type Routing } from './router.js';

const INFO = { name: 'session-notes', version: '1.4.2' } as const;
const CARRIER: IdentityCarrier = { kind: 'bearer' };
const PATH = '/mcp';
const MAX_NOTES = 100;

/** The tool that adds a note, by default `jot`. */
export interface NoteTool {
  readonly name: string;
  readonly description: string;
}
const JOT: NoteTool = { name: 'jot', description: 'Add a note to this session.' };

/** One session's server: its notes, and who opened it. */
function notesServer(owner: string, noteTool: NoteTool): McpServer {
  const notes: string[] = [];
  const server = new McpServer(INFO, { capabilities: { logging: {} } });
  server.registerTool(
    noteTool.name,
    {
      description: noteTool.description,
      inputSchema: z.object({ note: z.string().min(1).max(500) }),
    },
    async ({ note }) => {
      if (notes.length >= MAX_NOTES) notes.shift();
      notes.push(note);
      // On the session's own stream: whoever listens to this session hears it.
      await server.server
        .sendLoggingMessage({ level: 'info', logger: 'notes', data: `note added: ${note}` })
        .catch(() => undefined);
      return { content: [{ type: 'text', text: `Noted. This session holds ${notes.length}.` }] };
    },
  );
  server.registerTool(
    'recap',
    {
      description: "List this session's notes.",
      inputSchema: z.object({}),
      annotations: { readOnlyHint: true },
    },
    async () => ({
      content: [
        {
          type: 'text',
          text:
            notes.length === 0
              ? `No notes yet in this session (opened by ${owner}).`
              : `Notes in this session (opened by ${owner}): ${notes.join('; ')}`,
        },
      ],
    }),
  );
  return server;
}

/**
 * The twin in `routing` over HTTP; `noteTool` names the tool that adds a note instead of `jot` (a
 * test's other shapes: one the call plan leaves alone by default).
 */
export async function startSessionNotes(
  routing: Routing,
  noteTool: NoteTool = JOT,
): Promise<RunningTwin> {
  const router = createSessionRouter(routing, (owner) => notesServer(owner, noteTool));
  const node = toNodeHandler(
    {
      fetch: (request, options) => {
        const principal = options?.authInfo?.clientId;
        // The host refuses an unauthenticated request first; failing closed keeps a wiring slip
        // from serving everyone as one user.
        if (typeof principal !== 'string')
          return Promise.resolve(new Response(null, { status: 401 }));
        return router.handle(request, principal);
      },
    },
    { maxRequestBodySize: MAX_TWIN_BODY_BYTES },
  );
  const validHost = localhostHostValidation();
  const validOrigin = localhostOriginValidation();
  const server = createServer((req: IncomingMessage & { auth?: AuthInfo }, res) => {
    const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
    if (path !== PATH) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"error":"not_found"}');
      return;
    }
    if (!validHost(req, res) || !validOrigin(req, res)) return;
    const principal = bearerPrincipal(req.headers.authorization);
    if (principal === undefined) {
      res.writeHead(401, {
        'content-type': 'application/json',
        'www-authenticate': 'Bearer error="invalid_token"',
      });
      res.end('{"error":"invalid_token"}');
      return;
    }
    req.auth = authInfoFor(principal);
    void node(req, res);
  });
  server.headersTimeout = 10_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${PATH}`,
    async close() {
      await router.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

// A legacy server: the 2026-07-28 probes are skipped, and no tool mints a handle.
const LEGACY = {
  'handle/cross-principal': 'skipped',
  'state/tamper': 'skipped',
  'state/replay-principal': 'skipped',
  'transport/origin': 'refuted',
} as const;

/** The `session-notes` twin. */
export const sessionNotes: ForeignTwin = {
  id: 'session-notes',
  summary: 'A 2025-11-25 server whose only state is the Mcp-Session-Id session (SDK v2 transport)',
  variants: ROUTINGS,
  transports: ['http'],
  identity: { http: CARRIER, stdio: CARRIER },
  expected: {
    fixed: { ...LEGACY, 'session/cross-principal': 'refuted' },
    'unbound-sessions': { ...LEGACY, 'session/cross-principal': 'confirmed' },
    'only-session-fallback': { ...LEGACY, 'session/cross-principal': 'confirmed' },
    'crashing-lookup': { ...LEGACY, 'session/cross-principal': 'errored' },
  },
  startHttp: (variant) => startSessionNotes(variantIn('session-notes', ROUTINGS, variant)),
  serveStdio: () =>
    Promise.reject(new Error('session-notes serves Streamable HTTP only: stdio has no sessions')),
};
