/**
 * Two servers that agree with everything, for the robustness tests. Both offer the whole surface the
 * probes look for (a tool that mints a workspace handle, a read-only tool that takes it, a flow that
 * asks for input with a `requestState`), and neither ever refuses anything:
 *
 * - `yes` answers every call with a bare success that repeats nothing it was sent: every handle is
 *   honoured, every `requestState` (changed, random, another principal's) is accepted.
 * - `echo` answers every call with everything it was sent: the caller, the arguments and the
 *   `requestState` verbatim, and each of them decoded too (a handle embeds its label and owner).
 * - `echo-pretty` echoes the same, but as pretty-printed text only, every object's keys sorted: the
 *   decoded state comes back whole yet never in the bytes it was sent in.
 *
 * "The server said yes" and "the server repeated my canary" are the two readings a scanner must not
 * take for a finding, so against either of these nothing may be confirmed.
 */
import { randomBytes } from 'node:crypto';
import type { Incoming } from './mcp-core.js';

/**
 * Every agreeable server. Beyond `yes`, `echo` and `echo-pretty`, one server per form an echo can
 * take, each acting on nothing:
 * - `echo-prose`: a prose header, then the request pretty-printed (no structured content);
 * - `echo-fenced`: prose, then the request in a Markdown `json` code fence;
 * - `echo-string`: the request as JSON text inside a string field of structured content;
 * - `echo-base64`: the request base64url-encoded in a trace line;
 * - `echo-urlencoded`: the request URL-encoded in a query-string line;
 * - `echo-lines`: every field flattened to `path: value` lines (no JSON at all);
 * - `echo-resource`: the request in an embedded resource's text;
 * - `echo-error`: the request in a tool error's text.
 */
export const AGREEABLE = [
  'yes',
  'echo',
  'echo-pretty',
  'echo-prose',
  'echo-fenced',
  'echo-string',
  'echo-base64',
  'echo-urlencoded',
  'echo-lines',
  'echo-resource',
  'echo-error',
] as const;
/** Which agreeable server to play. */
export type Agreeable = (typeof AGREEABLE)[number];

const wsArg = {
  type: 'object',
  properties: { workspace_id: { type: 'string' } },
  required: ['workspace_id'],
};

/** The surface: a minter, a read-only consumer, and a read-only tool that asks to confirm. */
export const AGREEABLE_TOOLS = [
  {
    name: 'open_workspace',
    description: 'Open a workspace.',
    inputSchema: {
      type: 'object',
      properties: { label: { type: 'string' } },
      required: ['label'],
    },
  },
  {
    name: 'read_workspace',
    description: 'Read a workspace.',
    inputSchema: wsArg,
    annotations: { readOnlyHint: true },
  },
  {
    name: 'export_workspace',
    description: 'Export a workspace. Asks to confirm.',
    inputSchema: wsArg,
    annotations: { readOnlyHint: true },
  },
];

const b64 = (v: unknown): string => Buffer.from(JSON.stringify(v)).toString('base64url');

/** Every string decoded as base64url JSON where it decodes (a `ws-` prefix stripped first). */
function decodedStrings(value: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const walk = (v: unknown, path: string): void => {
    if (typeof v === 'string') {
      try {
        const parsed: unknown = JSON.parse(
          Buffer.from(v.replace(/^ws-/, ''), 'base64url').toString('utf8'),
        );
        if (typeof parsed === 'object' && parsed !== null) out[path] = parsed;
      } catch {
        // Not an encoded value.
      }
    } else if (typeof v === 'object' && v !== null) {
      for (const [k, item] of Object.entries(v)) walk(item, path ? `${path}.${k}` : k);
    }
  };
  walk(value, '');
  return out;
}

/** A deep copy with every object's keys in sorted order. */
function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (typeof value !== 'object' || value === null) return value;
  const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return Object.fromEntries(entries.map(([k, v]) => [k, sortedKeys(v)]));
}

const text = (t: string, extra: Record<string, unknown> = {}) => ({
  resultType: 'complete',
  content: [{ type: 'text', text: t }],
  ...extra,
});

/** Every leaf of a value as a `path: value` line. */
function lines(value: unknown, path = ''): string[] {
  if (typeof value !== 'object' || value === null) return [`${path}: ${String(value)}`];
  return Object.entries(value).flatMap(([k, v]) => lines(v, path ? `${path}.${k}` : k));
}

/** A result that shows `body` back in the form `kind` echoes in. */
function echoed(kind: Agreeable, body: Record<string, unknown>): Record<string, unknown> {
  const json = JSON.stringify(body);
  const pretty = JSON.stringify(sortedKeys(body), null, 2);
  switch (kind) {
    case 'echo-pretty':
      return text(pretty);
    case 'echo-prose':
      return text(
        `Here is exactly what you sent me, for debugging:\n${pretty}\nNothing was changed.`,
      );
    case 'echo-fenced':
      return text(`Request received.\n\n\`\`\`json\n${pretty}\n\`\`\`\n`);
    case 'echo-string':
      return text('ok', { structuredContent: { debug: json } });
    case 'echo-base64':
      return text(`ok; trace=${Buffer.from(json).toString('base64url')}`);
    case 'echo-urlencoded':
      return text(`ok; see https://example.invalid/trace?q=${encodeURIComponent(json)}`);
    case 'echo-lines':
      return text(lines(body).join('\n'));
    case 'echo-resource':
      return {
        resultType: 'complete',
        content: [{ type: 'resource', resource: { uri: 'echo://last', text: json } }],
      };
    case 'echo-error':
      return { ...text(`cannot do that with ${json}`), isError: true };
    default:
      return text(json, { structuredContent: body });
  }
}

/** The `tools/call` result of an agreeable server. `caller` is the principal it was sent. */
export function agreeableCall(
  kind: Agreeable,
  params: Record<string, unknown>,
  caller: string,
): Record<string, unknown> {
  const name = String(params['name'] ?? '');
  const args = (params['arguments'] ?? {}) as Record<string, unknown>;
  const state = params['requestState'];
  const reply = (body: Record<string, unknown>) => echoed(kind, body);
  if (name === 'export_workspace' && state === undefined) {
    // The state names who asked and for what, as an unprotected state would.
    const issued = b64({ principal: caller, workspace_id: args['workspace_id'], step: 'confirm' });
    return {
      resultType: 'input_required',
      inputRequests: {
        confirm: {
          method: 'elicitation/create',
          params: {
            message: 'Go ahead?',
            requestedSchema: {
              type: 'object',
              properties: { confirm: { type: 'boolean' } },
              required: ['confirm'],
            },
          },
        },
      },
      requestState: issued,
    };
  }
  if (kind === 'yes') {
    if (name === 'open_workspace')
      return reply({ workspace_id: `ws-${randomBytes(8).toString('hex')}` });
    return reply({ ok: true });
  }
  const sent = { caller, arguments: args, ...(state === undefined ? {} : { requestState: state }) };
  const echo = { ...sent, decoded: decodedStrings(sent) };
  if (name === 'open_workspace') {
    // A handle that embeds what it was minted with: echoing it repeats the label and the owner.
    return reply({ workspace_id: `ws-${b64({ label: args['label'], owner: caller })}`, ...echo });
  }
  return reply(echo);
}

/** The JSON-RPC answer of an agreeable server to `message`, or undefined for a notification. */
export function agreeableAnswer(
  kind: Agreeable,
  message: Incoming,
  caller: string,
): Record<string, unknown> | undefined {
  if (message.id === undefined) return undefined;
  const ok = (result: Record<string, unknown>) => ({ jsonrpc: '2.0', id: message.id, result });
  switch (message.method) {
    case 'server/discover':
      return ok({
        resultType: 'complete',
        supportedVersions: ['2026-07-28'],
        capabilities: { tools: {} },
      });
    case 'tools/list':
      return ok({ resultType: 'complete', tools: AGREEABLE_TOOLS });
    case 'tools/call':
      return ok(agreeableCall(kind, message.params ?? {}, caller));
    default:
      return {
        jsonrpc: '2.0',
        id: message.id,
        error: { code: -32601, message: 'Method not found' },
      };
  }
}
