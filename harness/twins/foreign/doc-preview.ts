/**
 * `doc-preview`: the harmless tools a scan must not refuse. `upload_document({ title, markdown })`
 * mints the document handle (its name says upload; it only creates, and returns the id to the
 * caller); `show_document({ document_id })` names the title and who uploaded it; `preview({
 * document_id })` says in its description that the renderer makes an HTTP request (to the server's
 * own theme service, not to anything the caller names: no parameter is a URL), asks which theme
 * (input_required with a `requestState`), and then renders the document for the caller.
 *
 * flawed: document ids are random and looked up with no owner check (B reads A's document), and the
 * preview state is base64url JSON `{ document_id, theme, for }` that the last round believes: it
 * renders the state's document for the state's `for`.
 * fixed: ids are stateguard handles bound to the uploader (anyone else: "No document under that
 * id."), and the state is sealed by stateguard's guard, single use on a memory ledger.
 */
import { randomBytes } from 'node:crypto';
import {
  inputRequired,
  inputResponse,
  McpServer,
  type McpServerFactory,
} from '@modelcontextprotocol/server';
import * as z from 'zod';
import { createMemoryLedger } from '../../../src/ledger/memory.js';
import { createStateGuard } from '../../../src/sdk/guard.js';
import { quietLog, stderrLog, type FixtureLog } from '../../../src/fixture/log.js';
import { callerFor, type CallerOf } from './caller.js';
import { encodedJson, guardedJson, record, shortText, type FlowCodec } from './flow-state.js';
import { hostHttp, hostStdio } from './host.js';
import { failure } from './missed/kit.js';
import { owned, type Owned } from './missed/owned.js';
import { variantIn, type ForeignTwin, type IdentityCarrier } from './twin.js';

const VARIANTS = ['flawed', 'fixed'] as const;
type Variant = (typeof VARIANTS)[number];
const INFO = { name: 'doc-renderer', version: '1.4.0' } as const;
const CARRIER: IdentityCarrier = { kind: 'bearer' };
const THEME = 'theme';
const THEMES = ['light', 'dark', 'print'] as const;
const NOT_FOUND = 'No document under that id.';

interface Doc {
  readonly title: string;
  readonly markdown: string;
  readonly owner: string;
}

interface PreviewState {
  readonly document_id: string;
  readonly for: string;
}

function previewState(value: unknown): PreviewState | undefined {
  const v = record(value);
  const id = shortText(v?.['document_id'], 2048);
  const who = shortText(v?.['for'], 512);
  return id && who ? { document_id: id, for: who } : undefined;
}

function register(
  server: McpServer,
  docs: Owned<Doc>,
  codec: FlowCodec<PreviewState>,
  callerOf: CallerOf,
): void {
  server.registerTool(
    'upload_document',
    {
      description: 'Upload a Markdown document. Returns its id.',
      inputSchema: z.object({
        title: z.string().min(1).max(200),
        markdown: z.string().min(1).max(20_000),
      }),
    },
    async ({ title, markdown }, ctx) => {
      const owner = callerOf(ctx);
      const id = docs.issue(owner, { title, markdown, owner });
      return {
        content: [{ type: 'text', text: `Uploaded "${title}" as ${id}.` }],
        structuredContent: { document: { id } },
      };
    },
  );
  server.registerTool(
    'show_document',
    {
      description: 'Show a document: its title and who uploaded it.',
      inputSchema: z.object({ document_id: z.string().min(1).max(2048) }),
      annotations: { readOnlyHint: true },
    },
    async ({ document_id }, ctx) => {
      const d = docs.open(document_id, callerOf(ctx));
      if (d === undefined) return failure(NOT_FOUND);
      return {
        content: [{ type: 'text', text: `"${d.title}", uploaded by ${d.owner}.` }],
      };
    },
  );
  server.registerTool(
    'preview',
    {
      description:
        'Preview how a document renders. The renderer makes an HTTP request to the theme service ' +
        'for the stylesheet, so it first asks which theme to use.',
      inputSchema: z.object({ document_id: z.string().min(1).max(2048) }),
      annotations: { readOnlyHint: true },
    },
    async ({ document_id }, ctx) => {
      const caller = callerOf(ctx);
      const state = codec.read(ctx);
      if (state === null) return failure('That preview has expired. Start again.');
      if (state === undefined) {
        if (docs.open(document_id, caller) === undefined) return failure(NOT_FOUND);
        return inputRequired({
          inputRequests: {
            [THEME]: inputRequired.elicit({
              message: 'Which theme?',
              requestedSchema: z.object({ theme: z.enum(THEMES) }),
            }),
          },
          requestState: codec.write({ document_id, for: caller }),
        });
      }
      const view = inputResponse(ctx.mcpReq.inputResponses, THEME);
      const theme = view.kind === 'elicit' ? view.content?.['theme'] : undefined;
      if (view.kind !== 'elicit' || view.action !== 'accept' || typeof theme !== 'string')
        return failure('No theme chosen.');
      // The last round renders what the state names, for whom the state names.
      const d = docs.open(state.document_id, state.for);
      if (d === undefined) return failure('That preview has expired. Start again.');
      return {
        content: [
          {
            type: 'text',
            text: `Preview of "${d.title}" in the ${theme} theme, for ${state.for}:\n\n${d.markdown.slice(0, 500)}`,
          },
        ],
      };
    },
  );
}

function factoryFor(
  variant: Variant,
  transport: 'http' | 'stdio',
  log: FixtureLog,
): McpServerFactory {
  const callerOf = callerFor(transport, CARRIER);
  const docs = owned<Doc>({
    variant,
    audience: INFO.name,
    kind: 'document',
    prefix: 'doc_',
    log,
  });
  if (variant === 'flawed') {
    const codec = encodedJson('base64url', previewState);
    return () => {
      const server = new McpServer(INFO);
      register(server, docs, codec, callerOf);
      return server;
    };
  }
  const guard = createStateGuard({
    transport,
    keys: randomBytes(32),
    audience: INFO.name,
    principal: callerOf,
    singleUse: { ledger: createMemoryLedger({ maxEntries: 10_000 }), tools: ['preview'] },
    onReject: ({ reason }) => log(`[doc-preview] requestState refused (${reason})`),
  });
  const codec = guardedJson(previewState);
  return () => {
    const server = guard.protect(new McpServer(INFO));
    register(server, docs, codec, callerOf);
    return server;
  };
}

const variantOf = (variant: string): Variant => variantIn('doc-preview', VARIANTS, variant);

/** The `doc-preview` twin. */
export const docPreview: ForeignTwin = {
  id: 'doc-preview',
  // The flaw lives on tools the call plan leaves alone by default: the proof scan has the user's word.
  allowTools: ['upload_document'],
  summary: 'upload_document mints the handle; a preview whose description mentions HTTP asks input',
  variants: VARIANTS,
  transports: ['http', 'stdio'],
  identity: { http: CARRIER, stdio: CARRIER },
  expected: {
    flawed: {
      'handle/cross-principal': 'confirmed',
      'state/tamper': 'confirmed',
      'state/replay-principal': 'confirmed',
      'state/replay-request': 'confirmed',
      'state/replay-after-completion': 'skipped',
      'state/error-oracle': 'refuted',
    },
    fixed: {
      'handle/cross-principal': 'refuted',
      'state/tamper': 'refuted',
      'state/replay-principal': 'refuted',
      'state/replay-request': 'refuted',
      'state/replay-after-completion': 'skipped',
      'state/error-oracle': 'refuted',
    },
  },
  startHttp: (variant) =>
    hostHttp({
      factory: factoryFor(variantOf(variant), 'http', quietLog),
      carrier: CARRIER,
      path: '/docs/mcp',
    }),
  serveStdio: (variant) => hostStdio(factoryFor(variantOf(variant), 'stdio', stderrLog), stderrLog),
};
