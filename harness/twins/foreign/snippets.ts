/**
 * `snippets`: handles as resource URIs. `saveSnippet` answers a `resource_link` to
 * `snippet://<id>` (and a line of text); `resources/templates/list` offers `snippet://{id}`, and
 * `resources/read` of such a URI answers the snippet with its owner. No tool takes the id back: the
 * only consumer is `resources/read`.
 *
 * flawed: ids are random and unguessable, but a read looks the id up with no owner check.
 * fixed: ids are stateguard handles kept in a handle store, bound to the owner; any other reader gets
 * the same resource-not-found error as for an id that never existed.
 */
import { randomBytes } from 'node:crypto';
import {
  McpServer,
  ResourceNotFoundError,
  ResourceTemplate,
  type McpServerFactory,
  type ReadResourceResult,
} from '@modelcontextprotocol/server';
import * as z from 'zod';
import { createHandleBinder } from '../../../src/bind/handle.js';
import { createMemoryHandleBackend } from '../../../src/bind/memory-backend.js';
import { createHandleStore } from '../../../src/bind/store.js';
import { HandleRejectedError } from '../../../src/errors.js';
import { quietLog, stderrLog, type FixtureLog } from '../../../src/fixture/log.js';
import { callerFor } from './caller.js';
import { hostHttp, hostStdio } from './host.js';
import { variantIn, type ForeignTwin, type IdentityCarrier } from './twin.js';

const VARIANTS = ['flawed', 'fixed'] as const;
type Variant = (typeof VARIANTS)[number];
const INFO = { name: 'pastebin-snippets', version: '1.4.0' } as const;
const CARRIER: IdentityCarrier = { kind: 'bearer' };
const SCHEME = 'snippet://';
const KIND = 'snippet';
const MAX_SNIPPETS = 5000;

interface Snippet {
  title: string;
  body: string;
  owner: string;
}

/** Where snippets live: save one for its owner, read one for a caller (`undefined`: none for you). */
interface Shelf {
  save(snippet: Snippet): Promise<string>;
  read(id: string, caller: string): Promise<Snippet | undefined>;
}

/** The flaw: an unguessable id, and possession of it is the whole check. */
function openShelf(): Shelf {
  const table = new Map<string, Snippet>();
  return {
    async save(snippet) {
      const id = randomBytes(12).toString('hex');
      if (table.size >= MAX_SNIPPETS) table.delete(table.keys().next().value as string);
      table.set(id, snippet);
      return id;
    },
    read: async (id) => table.get(id),
  };
}

/** The fix: the id is a handle bound to the owner, and the store only answers through the binder. */
function boundShelf(log: FixtureLog): Shelf {
  const store = createHandleStore<Snippet>({
    binder: createHandleBinder({ keys: randomBytes(32), audience: INFO.name }),
    backend: createMemoryHandleBackend({ maxEntries: MAX_SNIPPETS }),
  });
  return {
    save: (snippet) => store.create(snippet.owner, KIND, snippet),
    async read(id, caller) {
      try {
        return await store.get(id, caller, KIND);
      } catch (error) {
        if (!(error instanceof HandleRejectedError)) throw error;
        log(`[snippets] snippet id refused (${error.reason})`);
        return undefined;
      }
    },
  };
}

function factoryFor(
  variant: Variant,
  transport: 'http' | 'stdio',
  log: FixtureLog,
): McpServerFactory {
  const callerOf = callerFor(transport, CARRIER);
  const shelf = variant === 'fixed' ? boundShelf(log) : openShelf();
  return () => {
    const server = new McpServer(INFO);
    server.registerTool(
      'saveSnippet',
      {
        title: 'Save snippet',
        description: 'Save a text snippet. Answers a link to read it back as a resource.',
        inputSchema: z.object({
          title: z.string().min(1).max(200),
          body: z.string().max(10_000),
        }),
        annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
      },
      async ({ title, body }, ctx) => {
        const id = await shelf.save({ title, body, owner: callerOf(ctx) });
        return {
          content: [
            { type: 'text', text: `Saved "${title}".` },
            {
              type: 'resource_link',
              uri: `${SCHEME}${id}`,
              name: title,
              mimeType: 'text/markdown',
            },
          ],
        };
      },
    );
    server.registerResource(
      'snippet',
      new ResourceTemplate(`${SCHEME}{id}`, { list: undefined }),
      {
        title: 'Snippet',
        description: 'A saved snippet, with its owner',
        mimeType: 'text/markdown',
      },
      async (uri, variables, ctx): Promise<ReadResourceResult> => {
        const id = variables['id'];
        const snippet =
          typeof id === 'string' && id.length <= 1024
            ? await shelf.read(id, callerOf(ctx))
            : undefined;
        // One answer for unknown, foreign and forged ids alike: nothing tells them apart.
        if (snippet === undefined) throw new ResourceNotFoundError(uri.href);
        return {
          contents: [
            {
              uri: uri.href,
              mimeType: 'text/markdown',
              text: `# ${snippet.title}\n\n${snippet.body}\n\nSaved by ${snippet.owner}.`,
            },
          ],
        };
      },
    );
    return server;
  };
}

const checked = (variant: string): Variant => variantIn('snippets', VARIANTS, variant);

export const snippets: ForeignTwin = {
  id: 'snippets',
  // The flaw lives on tools the call plan leaves alone by default: the proof scan has the user's word.
  allowTools: ['saveSnippet'],
  summary: 'A snippet store whose handles are resource_link URIs read through resources/read',
  variants: VARIANTS,
  transports: ['http', 'stdio'],
  identity: { http: CARRIER, stdio: CARRIER },
  expected: {
    flawed: {
      'handle/cross-principal': 'confirmed',
      'state/tamper': 'skipped',
      'state/replay-principal': 'skipped',
      'state/replay-request': 'skipped',
      'state/replay-after-completion': 'skipped',
      'state/error-oracle': 'skipped',
    },
    fixed: {
      'handle/cross-principal': 'refuted',
      'state/tamper': 'skipped',
      'state/replay-principal': 'skipped',
      'state/replay-request': 'skipped',
      'state/replay-after-completion': 'skipped',
      'state/error-oracle': 'skipped',
    },
  },
  startHttp: (variant) =>
    hostHttp({
      factory: factoryFor(checked(variant), 'http', quietLog),
      carrier: CARRIER,
      path: '/mcp/snippets',
    }),
  serveStdio: (variant) => hostStdio(factoryFor(checked(variant), 'stdio', stderrLog), stderrLog),
};
