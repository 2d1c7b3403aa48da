/**
 * Servers whose flaw sits behind the point where an experiment used to stop (issue 34), each with a
 * flawed and a correct variant, on both transports: in process over HTTP on 127.0.0.1 port 0
 * (`startStopShortHttp`), or as a stdio child
 * (`node --import tsx test/servers/stop-short.ts <shape> <variant>`). Identity is the bearer token
 * over HTTP and the `_meta` principal over stdio.
 *
 * - `jws-role`: `export_ledger({ project })` confirms first, with an HS256 JWS state carrying the
 *   registered claims (`iss`, `sub`, `aud`, `iat`, `exp`, `jti`) before its own (`project`, `step`,
 *   `format`, `locale`, `access`). `sub` must be the caller and `project` the argument; `access` decides what is
 *   exported. Flawed: the verifier also takes `alg: none`, so harmless changes (the registered
 *   claims, `format`, `locale`) are accepted between refusals of the signed-as-issued ones before
 *   the decisive change reaches `access`. Correct: HS256 only.
 * - `second-slot`: `create_contact({ name })`, `create_segment({ title })`,
 *   `show_contact({ contactId })`, `show_segment({ segmentId })` (each its owner's only),
 *   `add_to_segment({ contactId, segmentId })`. Flawed: `add_to_segment` checks the owner of the
 *   contact, not the owner of the segment, whose title and owner its answer names. Correct: both.
 * - `field-digest`: `preview_invoice({ customer })` confirms first, with a base64url JSON state
 *   `{ account, account_sha256, customer, step, tier }` where `account_sha256` is the unkeyed SHA-256
 *   of `account` (hex). Flawed: the digest is the only check, and the invoice names the state's
 *   account. Correct: the account must also be the caller.
 */
import { createHmac, createHash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import {
  acceptedContent,
  inputRequired,
  McpServer,
  type CallToolResult,
  type McpServerFactory,
} from '@modelcontextprotocol/server';
import * as z from 'zod';
import { hostHttp, hostStdio } from '../../harness/twins/foreign/host.js';
import { callerFor, type CallerOf } from '../../harness/twins/foreign/caller.js';
import type { RunningTwin } from '../../harness/twins/foreign/twin.js';

export const SHAPES = ['jws-role', 'second-slot', 'field-digest'] as const;
export type Shape = (typeof SHAPES)[number];
export type Variant = 'flawed' | 'correct';

const text = (value: string, isError = false): CallToolResult => ({
  content: [{ type: 'text', text: value }],
  ...(isError && { isError }),
});
const confirmSchema = z.object({ confirm: z.boolean() });
const ask = (message: string, requestState: string) =>
  inputRequired({
    inputRequests: { go: inputRequired.elicit({ message, requestedSchema: confirmSchema }) },
    requestState,
  });
const MAX_STATE = 16 * 1024;

function object(raw: string): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(raw);
    return typeof v === 'object' && v !== null && !Array.isArray(v)
      ? (v as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

const b64 = (v: unknown): string => Buffer.from(JSON.stringify(v)).toString('base64url');
const unb64 = (s: string): Record<string, unknown> | undefined =>
  object(Buffer.from(s, 'base64url').toString('utf8'));

/** Built once per process (the key outlives the per-request server); registers on each server. */
function jwsRole(variant: Variant, callerOf: CallerOf): (server: McpServer) => void {
  const key = randomBytes(32);
  const algorithms: Record<string, (input: string) => string> = {
    HS256: (input) => createHmac('sha256', key).update(input).digest('base64url'),
    ...(variant === 'flawed' ? { none: () => '' } : {}),
  };
  const INVALID = 'This export link is not valid any more.';
  const verify = (raw: string): Record<string, unknown> | undefined => {
    if (raw.length > MAX_STATE) return undefined;
    const [header, payload, signature, ...rest] = raw.split('.');
    if (header === undefined || payload === undefined || signature === undefined) return undefined;
    if (rest.length > 0) return undefined;
    const alg = unb64(header)?.['alg'];
    const sign = typeof alg === 'string' ? algorithms[alg] : undefined;
    if (sign === undefined) return undefined;
    const expected = Buffer.from(sign(`${header}.${payload}`));
    const given = Buffer.from(signature);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return undefined;
    const claims = unb64(payload);
    const exp = claims?.['exp'];
    return typeof exp === 'number' && exp * 1000 >= Date.now() ? claims : undefined;
  };
  return (server) =>
    server.registerTool(
      'export_ledger',
      {
        description: 'Export the ledger of a project after a confirmation.',
        inputSchema: z.object({ project: z.string().min(1).max(200) }),
        annotations: { readOnlyHint: true },
      },
      ({ project }, ctx) => {
        const caller = callerOf(ctx);
        const raw = ctx.mcpReq.requestState<string>();
        if (raw === undefined) {
          const now = Math.floor(Date.now() / 1000);
          const claims = {
            iss: 'ledger-export',
            sub: caller,
            aud: 'ledger-export',
            iat: now,
            exp: now + 600,
            jti: randomUUID(),
            project,
            step: 'confirm',
            format: 'csv',
            locale: 'en-GB',
            access: 'summary',
          };
          const input = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64(claims)}`;
          return ask(`Export the ledger of ${project}?`, `${input}.${algorithms['HS256']!(input)}`);
        }
        const claims = typeof raw === 'string' ? verify(raw) : undefined;
        if (
          claims === undefined ||
          claims['sub'] !== caller ||
          claims['project'] !== project ||
          claims['step'] !== 'confirm'
        )
          return text(INVALID, true);
        if (acceptedContent(ctx.mcpReq.inputResponses, 'go', confirmSchema)?.confirm !== true)
          return text('Export cancelled.');
        const access = String(claims['access']);
        return access === 'summary'
          ? text(`Ledger of ${project}: 3 entries, totals only.`)
          : text(`Ledger of ${project} with ${access} access: every entry, salaries included.`);
      },
    );
}

interface Owned {
  readonly owner: string;
  readonly name: string;
}
const MAX_RECORDS = 10_000;

function secondSlot(server: McpServer, variant: Variant, callerOf: CallerOf, store: Stores): void {
  const issue = (map: Map<string, Owned>, prefix: string, rec: Owned): string => {
    if (map.size >= MAX_RECORDS) map.delete(map.keys().next().value as string);
    const id = `${prefix}${randomBytes(9).toString('base64url')}`;
    map.set(id, rec);
    return id;
  };
  server.registerTool(
    'create_contact',
    {
      description: 'Create a contact.',
      inputSchema: z.object({ name: z.string().min(1).max(200) }),
    },
    ({ name }, ctx) => {
      const contactId = issue(store.contacts, 'ct_', { owner: callerOf(ctx), name });
      return {
        content: [{ type: 'text', text: 'Contact created.' }],
        structuredContent: { contactId },
      };
    },
  );
  server.registerTool(
    'create_segment',
    {
      description: 'Create an audience segment.',
      inputSchema: z.object({ title: z.string().min(1).max(200) }),
    },
    ({ title }, ctx) => {
      const segmentId = issue(store.segments, 'sg_', { owner: callerOf(ctx), name: title });
      return {
        content: [{ type: 'text', text: 'Segment created.' }],
        structuredContent: { segmentId },
      };
    },
  );
  // Each record alone is read back by its owner only, in both variants.
  for (const [tool, param, map, what] of [
    ['show_contact', 'contactId', store.contacts, 'Contact'],
    ['show_segment', 'segmentId', store.segments, 'Segment'],
  ] as const)
    server.registerTool(
      tool,
      {
        description: `Show a ${what.toLowerCase()}.`,
        inputSchema: z.object({ [param]: z.string().min(1).max(1024) }),
        annotations: { readOnlyHint: true },
      },
      (args, ctx) => {
        const rec = map.get(String((args as Record<string, unknown>)[param]));
        if (rec === undefined || rec.owner !== callerOf(ctx))
          return text(`Unknown ${what.toLowerCase()}.`, true);
        return text(`${what} "${rec.name}" of ${rec.owner}.`);
      },
    );
  server.registerTool(
    'add_to_segment',
    {
      description: 'Add a contact to a segment.',
      inputSchema: z.object({
        contactId: z.string().min(1).max(1024),
        segmentId: z.string().min(1).max(1024),
      }),
      annotations: { destructiveHint: false, idempotentHint: true },
    },
    ({ contactId, segmentId }, ctx) => {
      const caller = callerOf(ctx);
      const c = store.contacts.get(contactId);
      if (c === undefined || c.owner !== caller) return text('Unknown contact.', true);
      const s = store.segments.get(segmentId);
      if (s === undefined || (variant === 'correct' && s.owner !== caller))
        return text('Unknown segment.', true);
      return text(`Added ${c.name} to segment "${s.name}" of ${s.owner}.`);
    },
  );
}

interface Stores {
  readonly contacts: Map<string, Owned>;
  readonly segments: Map<string, Owned>;
}

function fieldDigest(server: McpServer, variant: Variant, callerOf: CallerOf): void {
  const sha = (s: string): string => createHash('sha256').update(s).digest('hex');
  server.registerTool(
    'preview_invoice',
    {
      description: 'Preview the invoice of a customer after a confirmation.',
      inputSchema: z.object({ customer: z.string().min(1).max(200) }),
      annotations: { readOnlyHint: true },
    },
    ({ customer }, ctx) => {
      const caller = callerOf(ctx);
      const raw = ctx.mcpReq.requestState<string>();
      if (raw === undefined) {
        const state = { account: caller, account_sha256: sha(caller), customer, step: 'confirm' };
        return ask(`Preview the invoice of ${customer}?`, b64(state));
      }
      const state = typeof raw === 'string' && raw.length <= MAX_STATE ? unb64(raw) : undefined;
      const account = state?.['account'];
      if (
        state === undefined ||
        typeof account !== 'string' ||
        state['account_sha256'] !== sha(account) ||
        state['customer'] !== customer ||
        state['step'] !== 'confirm' ||
        (variant === 'correct' && account !== caller)
      )
        return text('This invoice draft is damaged.', true);
      if (acceptedContent(ctx.mcpReq.inputResponses, 'go', confirmSchema)?.confirm !== true)
        return text('Invoice preview cancelled.');
      return text(`Invoice for ${customer}, billed to the account of ${account}.`);
    },
  );
}

function factoryFor(shape: Shape, variant: Variant, transport: 'http' | 'stdio'): McpServerFactory {
  const callerOf = callerFor(transport, { kind: 'bearer' });
  const store: Stores = { contacts: new Map(), segments: new Map() };
  const register =
    shape === 'jws-role'
      ? jwsRole(variant, callerOf)
      : shape === 'second-slot'
        ? (s: McpServer) => secondSlot(s, variant, callerOf, store)
        : (s: McpServer) => fieldDigest(s, variant, callerOf);
  return () => {
    const server = new McpServer({ name: `stop-short-${shape}`, version: '1.0.0' });
    register(server);
    return server;
  };
}

/** `shape` in `variant` over HTTP on 127.0.0.1, any free port. */
export function startStopShortHttp(shape: Shape, variant: Variant): Promise<RunningTwin> {
  return hostHttp({
    factory: factoryFor(shape, variant, 'http'),
    carrier: { kind: 'bearer' },
    path: '/mcp',
  });
}

// Run as a program: from source under tsx, or from the suite's build (test/helpers/built.ts).
const isMain = /stop-short\.[jt]s$/.test(process.argv[1] ?? '');
if (isMain) {
  const shape = process.argv[2] as Shape;
  const variant = process.argv[3] as Variant;
  if (!SHAPES.includes(shape) || (variant !== 'flawed' && variant !== 'correct')) {
    process.stderr.write('usage: stop-short.ts <shape> flawed|correct\n');
    process.exit(2);
  }
  void hostStdio(factoryFor(shape, variant, 'stdio'), (line) => process.stderr.write(`${line}\n`));
}
