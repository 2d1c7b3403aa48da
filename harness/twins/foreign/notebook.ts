/**
 * `notebook`: a lookup that never says "error". `jot({ text })` answers structured content
 * `{ entry: { ref } }`; `peek({ name })` (a parameter named like anything but a reference) answers
 * the entry's text and author, and for a name it does not know it answers "Nothing there." as an
 * ordinary success, not a tool error. So a placeholder is *accepted*, and only what the answer says
 * tells a real lookup from a miss: a scanner must not wait for a refusal to find the handle.
 *
 * flawed: refs are random, and a peek looks the ref up with no author check.
 * fixed: refs are stateguard handles bound to the author; any other caller gets "Nothing there."
 * too, exactly as for a ref that never existed.
 */
import { randomBytes } from 'node:crypto';
import { McpServer, type McpServerFactory } from '@modelcontextprotocol/server';
import * as z from 'zod';
import { createHandleBinder } from '../../../src/bind/handle.js';
import { HandleRejectedError } from '../../../src/errors.js';
import { quietLog, stderrLog, type FixtureLog } from '../../../src/fixture/log.js';
import { callerFor } from './caller.js';
import { hostHttp, hostStdio } from './host.js';
import { variantIn, type ForeignTwin, type IdentityCarrier } from './twin.js';

const VARIANTS = ['flawed', 'fixed'] as const;
type Variant = (typeof VARIANTS)[number];
const INFO = { name: 'pocket-notebook', version: '0.3.0' } as const;
const CARRIER: IdentityCarrier = { kind: 'bearer' };
const MAX_ENTRIES = 5000;
const NOTHING = 'Nothing there.';

interface Entry {
  readonly text: string;
  readonly author: string;
}

/** Refs and the entries behind them: the flawed desk looks up; the fixed one checks the author. */
function desk(variant: Variant, log: FixtureLog) {
  const entries = new Map<string, Entry>();
  const binder = createHandleBinder({ keys: randomBytes(32), audience: INFO.name });
  return {
    jot(entry: Entry): string {
      if (entries.size >= MAX_ENTRIES) entries.delete(entries.keys().next().value as string);
      if (variant === 'flawed') {
        const ref = `nb${randomBytes(6).toString('hex')}`;
        entries.set(ref, entry);
        return ref;
      }
      const { handle, claims } = binder.issue(entry.author, 'entry');
      entries.set(claims.handleId, entry);
      return handle;
    },
    peek(ref: string, caller: string): Entry | undefined {
      if (variant === 'flawed') return entries.get(ref);
      try {
        return entries.get(binder.open(ref, caller, 'entry').handleId);
      } catch (error) {
        if (!(error instanceof HandleRejectedError)) throw error;
        log(`[notebook] ref refused (${error.reason})`);
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
  const book = desk(variant, log);
  return () => {
    const server = new McpServer(INFO);
    server.registerTool(
      'jot',
      {
        description: 'Jot a line into the notebook.',
        inputSchema: z.object({ text: z.string().min(1).max(500) }),
      },
      async ({ text }, ctx) => {
        const ref = book.jot({ text, author: callerOf(ctx) });
        return {
          content: [{ type: 'text', text: 'Jotted.' }],
          structuredContent: { entry: { ref } },
        };
      },
    );
    server.registerTool(
      'peek',
      {
        description: 'Peek at a line of the notebook.',
        inputSchema: z.object({ name: z.string().min(1).max(1024) }),
        annotations: { readOnlyHint: true },
      },
      async ({ name }, ctx) => {
        const entry = book.peek(name, callerOf(ctx));
        const text = entry === undefined ? NOTHING : `"${entry.text}", jotted by ${entry.author}.`;
        return { content: [{ type: 'text', text }] };
      },
    );
    return server;
  };
}

const variantOf = (variant: string): Variant => variantIn('notebook', VARIANTS, variant);
const NO_FLOWS = {
  'state/tamper': 'skipped',
  'state/replay-principal': 'skipped',
  'state/replay-request': 'skipped',
  'state/replay-after-completion': 'skipped',
  'state/error-oracle': 'skipped',
} as const;

/** The `notebook` twin. */
export const notebook: ForeignTwin = {
  id: 'notebook',
  summary: 'A lookup that answers a miss as an ordinary success, under a parameter named `name`',
  variants: VARIANTS,
  transports: ['http', 'stdio'],
  identity: { http: CARRIER, stdio: CARRIER },
  expected: {
    flawed: { 'handle/cross-principal': 'confirmed', ...NO_FLOWS },
    fixed: { 'handle/cross-principal': 'refuted', ...NO_FLOWS },
  },
  startHttp: (variant) =>
    hostHttp({
      factory: factoryFor(variantOf(variant), 'http', quietLog),
      carrier: CARRIER,
      path: '/notebook',
    }),
  serveStdio: (variant) => hostStdio(factoryFor(variantOf(variant), 'stdio', stderrLog), stderrLog),
};
