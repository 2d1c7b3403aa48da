/**
 * `drafts`: handles that exist only in prose. `startDraft` answers one sentence naming the draft's
 * code (no structuredContent, no JSON); `reviewDraft({ which })` takes it back under a name that
 * hints at nothing and answers prose naming the subject and the author.
 *
 * The identity is an API key: the `X-Api-Key` header over HTTP, and over stdio the `DRAFTS_API_KEY`
 * variable read once at start, so two identities are two processes. Codes must therefore work across
 * processes:
 * - flawed: a stateless server's shortcut, the code *is* the draft, sealed (AES-256-GCM under the
 *   shared `DRAFTS_SECRET`) so nobody can read or forge one, but bound to nobody: any process opens
 *   any draft for anyone who holds its code. (A code that were plain base64 would only show a
 *   holder what the holder already has; sealing makes the leak the server's own doing.)
 * - fixed: the code is a stateguard handle bound to its author, sealed under a key every process
 *   shares (`DRAFTS_SECRET`), so another author's process can verify it, and refuses it. The draft
 *   itself stays in the minting process's memory.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { McpServer, type McpServerFactory, type ServerContext } from '@modelcontextprotocol/server';
import * as z from 'zod';
import { createHandleBinder } from '../../../src/bind/handle.js';
import { HandleRejectedError } from '../../../src/errors.js';
import { quietLog, stderrLog, type FixtureLog } from '../../../src/fixture/log.js';
import { identityOf } from './caller.js';
import { record, shortText } from './flow-state.js';
import { hostHttp, hostStdio } from './host.js';
import { variantIn, type ForeignTwin, type IdentityCarrier } from './twin.js';

const VARIANTS = ['flawed', 'fixed'] as const;
type Variant = (typeof VARIANTS)[number];
const INFO = { name: 'quill-drafts', version: '0.9.1' } as const;

/** The API-key header over HTTP. */
export const API_KEY_HEADER = 'X-Api-Key';
/** The variable a stdio process takes its one identity from. */
export const API_KEY_ENV = 'DRAFTS_API_KEY';
/** The variable holding the secret every fixed process seals codes with. */
export const SECRET_ENV = 'DRAFTS_SECRET';
/** The secret when `DRAFTS_SECRET` is unset: a fixture's, public on purpose, shared by every process. */
export const DEFAULT_SECRET = 'stateguard foreign fixture: drafts secret, not for production use';

const HTTP_CARRIER: IdentityCarrier = { kind: 'header', name: API_KEY_HEADER };
const STDIO_CARRIER: IdentityCarrier = { kind: 'env', name: API_KEY_ENV };

const CODE_PREFIX = 'dr_';
const KIND = 'draft';
const MAX_DRAFTS = 5000;
const NOT_FOUND = 'There is no draft under that name. Ask its author to share it again.';

interface Draft {
  readonly subject: string;
  readonly author: string;
}

/** Where drafts live and how a code finds one. */
interface DraftDesk {
  start(draft: Draft): string;
  /** The draft `code` names for `caller`, or `undefined`. */
  find(code: string, caller: string): Draft | undefined;
}

/** The flaw: the code carries the draft, sealed but not bound, and whoever holds it reads it. */
function selfContainedDesk(secret: string): DraftDesk {
  const key = createHash('sha256').update(`drafts-code:${secret}`).digest();
  return {
    start(draft) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([
        cipher.update(JSON.stringify({ s: draft.subject, a: draft.author })),
        cipher.final(),
      ]);
      return `${CODE_PREFIX}${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')}`;
    },
    find(code) {
      if (!code.startsWith(CODE_PREFIX) || code.length > 2048) return undefined;
      try {
        const raw = Buffer.from(code.slice(CODE_PREFIX.length), 'base64url');
        const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
        decipher.setAuthTag(raw.subarray(12, 28));
        const text = Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]);
        const v = record(JSON.parse(text.toString('utf8')));
        const subject = shortText(v?.['s'], 200);
        const author = shortText(v?.['a'], 512);
        return subject === undefined || author === undefined ? undefined : { subject, author };
      } catch {
        return undefined;
      }
    },
  };
}

/** The fix: a handle bound to the author under the shared secret; the draft kept in memory. */
function boundDesk(secret: string, log: FixtureLog): DraftDesk {
  const binder = createHandleBinder({
    keys: secret,
    audience: INFO.name,
    ttlSeconds: 7 * 24 * 3600,
  });
  const drafts = new Map<string, Draft>();
  return {
    start(draft) {
      const { handle, claims } = binder.issue(draft.author, KIND);
      if (drafts.size >= MAX_DRAFTS) drafts.delete(drafts.keys().next().value as string);
      drafts.set(claims.handleId, draft);
      return `${CODE_PREFIX}${handle}`;
    },
    find(code, caller) {
      if (!code.startsWith(CODE_PREFIX)) return undefined;
      try {
        const claims = binder.open(code.slice(CODE_PREFIX.length), caller, KIND);
        const draft = drafts.get(claims.handleId);
        if (draft === undefined) log('[drafts] draft code refused (unknown here)');
        return draft;
      } catch (error) {
        if (!(error instanceof HandleRejectedError)) throw error;
        log(`[drafts] draft code refused (${error.reason})`);
        return undefined;
      }
    },
  };
}

function say(text: string, isError = false) {
  return { content: [{ type: 'text' as const, text }], ...(isError ? { isError } : {}) };
}

function factoryFor(
  variant: Variant,
  callerOf: (ctx: ServerContext) => string | undefined,
  log: FixtureLog,
): McpServerFactory {
  const secret = process.env[SECRET_ENV] || DEFAULT_SECRET;
  const desk = variant === 'fixed' ? boundDesk(secret, log) : selfContainedDesk(secret);
  const NO_KEY = `This server needs an API key: set ${API_KEY_ENV}.`;
  return () => {
    const server = new McpServer(INFO);
    server.registerTool(
      'startDraft',
      {
        title: 'Start a draft',
        description: 'Start a new draft with a subject. You get a code to share with reviewers.',
        inputSchema: z.object({ subject: z.string().min(1).max(200) }),
        annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
      },
      async ({ subject }, ctx) => {
        const author = callerOf(ctx);
        if (author === undefined) return say(NO_KEY, true);
        const code = desk.start({ subject, author });
        return say(`Your draft ${code} is ready. Share it with reviewers using that code.`);
      },
    );
    server.registerTool(
      'reviewDraft',
      {
        title: 'Review a draft',
        description: 'Open a draft someone shared with you, to review it.',
        inputSchema: z.object({ which: z.string().min(1).max(2048) }),
        annotations: { readOnlyHint: true, openWorldHint: false },
      },
      async ({ which }, ctx) => {
        const caller = callerOf(ctx);
        if (caller === undefined) return say(NO_KEY, true);
        const draft = desk.find(which.trim(), caller);
        if (draft === undefined) return say(NOT_FOUND, true);
        return say(
          `The draft "${draft.subject}" by ${draft.author} is waiting for your review. Nothing has been changed yet.`,
        );
      },
    );
    return server;
  };
}

const checked = (variant: string): Variant => variantIn('drafts', VARIANTS, variant);

export const drafts: ForeignTwin = {
  id: 'drafts',
  summary: 'Draft sharing whose codes appear only in prose, keyed by an API key header or env',
  variants: VARIANTS,
  transports: ['http', 'stdio'],
  identity: { http: HTTP_CARRIER, stdio: STDIO_CARRIER },
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
      // The host answers 401 without a key, so every request reaching a tool carries one.
      factory: factoryFor(checked(variant), (ctx) => ctx.http?.authInfo?.clientId, quietLog),
      carrier: HTTP_CARRIER,
      path: '/v1/mcp',
    }),
  serveStdio(variant) {
    // Read once, at start: this process is one identity for its whole life.
    const apiKey = identityOf(process.env[API_KEY_ENV]);
    return hostStdio(
      factoryFor(checked(variant), () => apiKey, stderrLog),
      stderrLog,
    );
  },
};
