/**
 * The library's front door: one complete server that the scanner reads clean. Bearer auth gives
 * every request a verified `AuthInfo`; the guard seals `requestState` and binds it to that
 * principal; the final round of a flow opens once; workspaces are principal-bound handles in a
 * store; the SDK's own Host and Origin checks stand in front of everything.
 *
 * docs/library.md shows this file from its first import to its end, with the relative imports
 * spelt as the package's specifiers (`stateguard`, `stateguard/sdk`); test/examples/front-door.test.ts
 * keeps the two the same, starts this server and scans it.
 *
 *     STATEGUARD_KEYS=<32+ bytes> DEMO_TOKENS=alice=<token>,bob=<token> npm run example:front-door
 */
import { createServer } from 'node:http';
import { toNodeHandler } from '@modelcontextprotocol/node';
import {
  createMcpHandler,
  hostHeaderValidationResponse,
  inputRequired,
  inputResponse,
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  McpServer,
  OAuthError,
  OAuthErrorCode,
  originValidationResponse,
  requireBearerAuth,
  type OAuthTokenVerifier,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { z } from 'zod';
import {
  createHandleBinder,
  createHandleStore,
  createMemoryHandleBackend,
  createMemoryLedger,
  withHandleErrors,
  type Principal,
} from '../../src/index.js';
import { createStateGuard, principalFromAuthInfo } from '../../src/sdk/index.js';

const log = (line: string) => process.stderr.write(`[notes] ${line}\n`);

// Secrets of at least 32 bytes, the same on every instance; the first seals, every one opens.
const keys = (process.env['STATEGUARD_KEYS'] ?? '').split(',').filter((key) => key !== '');
if (keys.length === 0) throw new TypeError('set STATEGUARD_KEYS (comma-separated secrets)');

// 1. Bearer auth. Your token check goes here (a JWT library, an introspection call). This demo
// knows a fixed list, DEMO_TOKENS="alice=<token>,bob=<token>": each token is its own user.
const users = new Map<string, string>();
for (const pair of (process.env['DEMO_TOKENS'] ?? '').split(',')) {
  const [user = '', token = ''] = pair.split('=');
  if (user !== '' && token !== '') users.set(token, user);
}
const verifier: OAuthTokenVerifier = {
  async verifyAccessToken(token) {
    const user = users.get(token);
    if (user === undefined) throw new OAuthError(OAuthErrorCode.InvalidToken, 'unknown token');
    return {
      token,
      clientId: 'notes-demo',
      scopes: [],
      expiresAt: Math.floor(Date.now() / 1000) + 3600,
      // The guard's default principal is the token's client, issuer and subject: put the last two here.
      extra: { sub: user, iss: 'https://notes.example' },
    };
  },
};

// 2. The guard: seals every requestState for this principal, tool and arguments; 3. single use:
// the confirmed round of create_note opens once.
const guard = createStateGuard({
  transport: 'http',
  keys,
  audience: 'notes',
  singleUse: { ledger: createMemoryLedger(), tools: ['create_note'] },
  onReject: ({ reason, method, name }) => log(`refused ${method} ${name ?? '-'}: ${reason}`),
});

// 4. Handles: a workspace id is sealed to the principal that created it, and kept in a store.
const store = createHandleStore<{ title: string }>({
  binder: createHandleBinder({ keys, audience: 'notes' }),
  backend: createMemoryHandleBackend(),
});
const onRejected = (reason: string) => log(`handle refused: ${reason}`);
const notes = new Map<string, number>(); // notes per workspace (a demo: counted, not kept)

/** The verified caller. requireBearerAuth below lets no request without a token through. */
function principalOf(ctx: ServerContext): Principal {
  const principal = principalFromAuthInfo(ctx.http?.authInfo);
  if (principal === undefined) throw new Error('no verified principal');
  return principal;
}

const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] });
const workspaceArg = z.object({ workspace: z.string().max(1024) });

/** A yes/no question, asked mid-call; the guard seals `requestState` on the way out. */
function confirm(message: string, state: object) {
  return inputRequired({
    inputRequests: {
      confirm: inputRequired.elicit({
        message,
        requestedSchema: {
          type: 'object',
          properties: { confirm: { type: 'boolean' } },
          required: ['confirm'],
        },
      }),
    },
    requestState: JSON.stringify(state),
  });
}

/** Whether the client accepted the question this round answers. */
function confirmed(ctx: ServerContext): boolean {
  const answer = inputResponse(ctx.mcpReq.inputResponses, 'confirm');
  return (
    answer.kind === 'elicit' && answer.action === 'accept' && answer.content?.['confirm'] === true
  );
}

function buildServer(): McpServer {
  // protect() first, then register the tools.
  const server = guard.protect(new McpServer({ name: 'notes', version: '1.0.0' }));

  server.registerTool(
    'create_workspace',
    {
      description: 'Create a workspace and return its handle.',
      inputSchema: z.object({ title: z.string().min(1).max(200) }),
    },
    async ({ title }, ctx) => {
      const workspace = await store.create(principalOf(ctx), 'workspace', { title });
      return {
        content: [{ type: 'text', text: JSON.stringify({ workspace, title }) }],
        structuredContent: { workspace, title },
      };
    },
  );

  server.registerTool(
    'read_workspace',
    { description: 'Read a workspace by its handle.', inputSchema: workspaceArg },
    withHandleErrors({ kind: 'workspace', onRejected }, async ({ workspace }, ctx) => {
      const { title } = await store.get(workspace, principalOf(ctx), 'workspace');
      return text(JSON.stringify({ workspace, title }));
    }),
  );

  server.registerTool(
    'create_note',
    {
      description: 'Create a note in a workspace. Asks to confirm, then returns the note.',
      inputSchema: z.object({ workspace: z.string().max(1024), text: z.string().max(2000) }),
    },
    withHandleErrors({ kind: 'workspace', onRejected }, async ({ workspace, text: note }, ctx) => {
      const { title } = await store.get(workspace, principalOf(ctx), 'workspace');
      // The state is the JSON this server wrote in round 1; the guard has opened and checked it.
      if (ctx.mcpReq.requestState<string>() === undefined) {
        return confirm(`Add a note to "${title}"?`, { step: 'confirm' });
      }
      if (!confirmed(ctx)) return text('Nothing created.');
      const count = (notes.get(workspace) ?? 0) + 1;
      notes.set(workspace, count);
      return text(JSON.stringify({ workspace, note: count, text: note }));
    }),
  );

  server.registerTool(
    'delete_workspace',
    {
      description: 'Delete a workspace by its handle.',
      inputSchema: workspaceArg,
      annotations: { destructiveHint: true },
    },
    withHandleErrors({ kind: 'workspace', onRejected }, async ({ workspace }, ctx) => {
      await store.revoke(workspace, principalOf(ctx), 'workspace');
      return text('Deleted.');
    }),
  );

  return server;
}

// 5. HTTP: the SDK's Host and Origin checks, then bearer auth, then a fresh guarded server per
// request. Behind a proxy with a public name, list that name instead of the localhost lists.
const mcp = createMcpHandler(buildServer);
const authenticate = requireBearerAuth({ verifier });
const endpoint = {
  async fetch(request: Request): Promise<Response> {
    const refused =
      hostHeaderValidationResponse(request, localhostAllowedHostnames()) ??
      originValidationResponse(request, localhostAllowedOrigins());
    if (refused !== undefined) return refused;
    const authInfo = await authenticate(request);
    if (authInfo instanceof Response) return authInfo; // 401 with the Bearer challenge
    return mcp.fetch(request, { authInfo }); // the handlers' ctx.http.authInfo
  },
};

const http = createServer(toNodeHandler(endpoint));
http.listen(Number(process.env['PORT'] ?? 3000), '127.0.0.1', () => {
  const address = http.address();
  const port = typeof address === 'object' && address !== null ? address.port : '?';
  log(`ready http://127.0.0.1:${port}/mcp`);
});
