/**
 * `inspector-echo` on the official SDK v2: a debugging aid that previews calls and round-trips notes
 * through tokens, acting on nothing.
 *
 * - `preview_request({ label, payload? })` asks once (`show: boolean`), handing out an unsigned
 *   base64url `requestState` of `{ principal, label, step: 1, approved: false }`; the retry answers
 *   with the request it received (arguments, input responses, the raw state and its decoding) and
 *   does nothing with any of it. An undecodable state is previewed as such, never refused.
 * - `make_token({ note })` answers `tok-<base64url of the note>`; `show_token({ token })` decodes
 *   whatever token it is given. Nothing is stored, nothing has an owner.
 *
 * There is no verify hook: the state needs no integrity, since editing it can change nothing but
 * the preview of the edit (the spec's "MAY be omitted" case). The `sealed` variant seals it anyway
 * with stateguard's guard (`createStateGuard`), the belt-and-braces a cautious team would add: the
 * handler still sees the plaintext it returned, the client only a sealed token bound to caller,
 * tool and arguments.
 */
import {
  inputRequired,
  McpServer,
  type McpServerFactory,
  type ServerContext,
} from '@modelcontextprotocol/server';
import * as z from 'zod';
import { principalFromMeta } from '../../../../src/sdk/principal.js';
import { createStateGuard, type StateGuard } from '../../../../src/sdk/guard.js';
import {
  describeToken,
  encodeState,
  renderPreview,
  tokenFor,
  type InspectorEchoVariant,
} from './render.js';

/** The `_meta` key naming the caller over stdio. */
export const PRINCIPAL_KEY = 'io.modelcontextprotocol/principal';
/** The caller of a stdio request that names none. */
export const NOBODY = 'anonymous';
const MAX_PRINCIPAL_CHARS = 256;

const readOnly = { readOnlyHint: true, openWorldHint: false } as const;

const previewInput = z.object({
  label: z.string().min(1).max(200).describe('A name for this preview'),
  payload: z
    .object({
      headers: z.record(z.string().max(100), z.string().max(1000)).optional(),
      body: z
        .object({
          text: z.string().max(4000).optional(),
          tags: z.array(z.string().max(100)).max(20).optional(),
        })
        .optional(),
    })
    .optional()
    .describe('Whatever you would send; it is shown back, never used'),
});

/** Who is calling: the bearer the HTTP gate verified, else the stdio `_meta` key. */
function callerOf(ctx: ServerContext): string {
  const fromToken = ctx.http?.authInfo?.clientId;
  if (typeof fromToken === 'string' && fromToken.length > 0) return fromToken;
  if (ctx.http !== undefined) throw new Error('unauthenticated request');
  const fromMeta = ctx.mcpReq._meta?.[PRINCIPAL_KEY];
  return typeof fromMeta === 'string' &&
    fromMeta.length > 0 &&
    fromMeta.length <= MAX_PRINCIPAL_CHARS
    ? fromMeta
    : NOBODY;
}

const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] });

/**
 * The state guard of the `sealed` variant (one per process: its key lives here), else `undefined`.
 * HTTP binds the bearer the SDK gate verified; stdio the `_meta` principal.
 */
export function inspectorGuard(
  variant: InspectorEchoVariant,
  transport: 'http' | 'stdio',
  log: (line: string) => void,
): StateGuard | undefined {
  if (variant !== 'sealed') return undefined;
  return createStateGuard({
    transport,
    allowEphemeralKey: true,
    audience: 'inspector-echo',
    ...(transport === 'stdio' && { principal: principalFromMeta(PRINCIPAL_KEY) }),
    onReject: ({ reason }) => log(`[inspector-echo] requestState refused (${reason})`),
  });
}

/**
 * The server factory for one variant (a fresh instance per HTTP request or stdio connection). Give
 * the `sealed` variant its guard from {@link inspectorGuard}.
 */
export function inspectorEchoFactory(
  variant: InspectorEchoVariant,
  guard?: StateGuard,
): McpServerFactory {
  return () => {
    const server = new McpServer({ name: 'inspector-echo', version: '0.3.1' });
    // Before any tool: the guard wraps the tools/call handler McpServer registers with the first.
    guard?.protect(server);

    server.registerTool(
      'preview_request',
      {
        title: 'Preview a request',
        description:
          'Debug helper: shows back the call it receives, after one confirmation round. Runs nothing.',
        inputSchema: previewInput,
        annotations: readOnly,
      },
      (args, ctx) => {
        const raw = ctx.mcpReq.requestState<string>();
        if (raw === undefined) {
          return inputRequired({
            inputRequests: {
              show: inputRequired.elicit({
                message: `Show the preview of "${args.label}"?`,
                requestedSchema: z.object({ show: z.boolean().describe('true to show it') }),
              }),
            },
            requestState: encodeState({
              principal: callerOf(ctx),
              label: args.label,
              step: 1,
              approved: false,
            }),
          });
        }
        return text(
          renderPreview(variant, {
            arguments: args,
            inputResponses: ctx.mcpReq.inputResponses,
            requestState: raw,
          }),
        );
      },
    );

    server.registerTool(
      'make_token',
      {
        title: 'Make a token',
        description: 'Wraps a note in a token (tok-...). Stores nothing.',
        inputSchema: z.object({ note: z.string().min(1).max(500).describe('Any text') }),
        annotations: readOnly,
      },
      ({ note }) => text(tokenFor(note)),
    );

    server.registerTool(
      'show_token',
      {
        title: 'Show a token',
        description: 'Shows the note a token (tok-...) carries.',
        inputSchema: z.object({ token: z.string().min(1).max(2048).describe('A tok-... token') }),
        annotations: readOnly,
      },
      ({ token }) => text(describeToken(token)),
    );

    return server;
  };
}
