/**
 * Three hostile targets on the shared core, over HTTP and stdio alike:
 *
 * - `hostile`: an echoing server whose every string field (server name, tool names, descriptions,
 *   answers, error messages, handles, a key) carries terminal control sequences (erase line, cursor
 *   up, OSC title, OSC 52 clipboard, OSC 8 hyperlink, a C1 CSI, CR, DEL) and bidi overrides.
 * - `risky`: an ordinary handle pair (open_workspace → read_workspace) next to three unannotated
 *   tools that would act on the host: a shell command, a URL fetch and a file read.
 * - `markup` (issue 11, the HTML report): `hostile`'s echo with markup and script instead of control
 *   sequences in every string, and a JSON-RPC error whose message carries the same whenever
 *   `read_workspace` is handed something that is not one of its handles.
 */
import { AGREEABLE_TOOLS, agreeableAnswer } from './agreeable.js';
import type { CallCounts, Incoming } from './mcp-core.js';

/** The hostile eras. */
export const HOSTILE_ERAS = ['hostile', 'risky', 'markup'] as const;
/** One of {@link HOSTILE_ERAS}. */
export type HostileEra = (typeof HOSTILE_ERAS)[number];

/** What every hostile string carries. */
export const EVIL =
  '\u001b[2K\u001b[1A\u001b]0;pwned\u0007\u001b]52;c;ZXZpbA==\u0007' +
  '\u001b]8;;ssh://evil.example/\u001b\\click\u001b]8;;\u001b\\' +
  '\u202egnp.exe\u202c\u2066x\u2069\u009b31m\r\u007f\u0000';

/**
 * What every string of the `markup` target carries: a script, an event handler, a style breakout, a
 * `javascript:` link, a comment and CDATA end, attribute-breaking quotes, a frame, a stylesheet, a
 * `<base>`, a refresh, a form, a bidi override and an entity that must not be decoded.
 */
export const MARKUP =
  '<script>alert(1)</script><img src=x onerror=alert(2)></style><style>*{display:none}</style>' +
  '<a href="javascript:alert(3)">click</a><!-- ]]> --> "\' onmouseover=alert(4) x="' +
  '<svg onload=alert(5)></svg><iframe src="http://evil.example/"></iframe>' +
  '<link rel=stylesheet href="http://evil.example/x.css"><base href="http://evil.example/">' +
  '<meta http-equiv="refresh" content="0;url=javascript:alert(6)"><form action="http://evil.example/">' +
  '</details></pre></code></td></table>&lt;script&gt; \u202egnp.exe\u202c';

/**
 * What the `markup` target appends to every `name` (tools, server): markup still, but without a word
 * that would make the scanner leave a tool alone (`script`, `url`, `file`…), so the tools are called
 * and their answers reach the report.
 */
export const NAME_MARKUP = '<img src=x onerror=alert(7)>"\'&amp;<!--';

/** The three tools a scan must not call without the opt-in (each requires its dangerous slot). */
export const RISKY_TOOLS = [
  {
    name: 'run',
    description: 'Run a shell command on the host and return its output.',
    inputSchema: {
      type: 'object',
      properties: { command: { type: 'string' } },
      required: ['command'],
    },
  },
  {
    name: 'get_page',
    description: 'Returns the body of a web page.',
    inputSchema: {
      type: 'object',
      properties: { url: { type: 'string' } },
      required: ['url'],
    },
  },
  {
    name: 'read_notes',
    description: 'Returns notes.',
    inputSchema: {
      type: 'object',
      properties: { path: { type: 'string' } },
      required: ['path'],
    },
  },
];

const HOSTILE_KEYS = new Set([
  'name',
  'description',
  'title',
  'text',
  'message',
  'version',
  'workspace_id',
  'label',
  'caller',
]);

function strip(v: unknown, evil: readonly string[]): unknown {
  if (typeof v === 'string') return evil.reduce((s, e) => s.split(e).join(''), v);
  if (Array.isArray(v)) return v.map((item) => strip(item, evil));
  if (typeof v === 'object' && v !== null)
    return Object.fromEntries(Object.entries(v).map(([k, item]) => [k, strip(item, evil)]));
  return v;
}

/** What the `markup` era appends to a string under `key` (names get the milder markup). */
const markupFor = (key: string): string => (key === 'name' ? NAME_MARKUP : MARKUP);

function poison(v: unknown, evil: string, key = ''): unknown {
  const added = evil === MARKUP ? markupFor(key) : evil;
  if (typeof v === 'string') return HOSTILE_KEYS.has(key) ? `${v}${added}` : v;
  if (Array.isArray(v)) return v.map((item) => poison(item, evil, key));
  if (typeof v === 'object' && v !== null)
    return Object.fromEntries(Object.entries(v).map(([k, item]) => [k, poison(item, evil, k)]));
  return v;
}

/** The answer of a hostile target to `message`, or undefined for a notification. */
export function hostileAnswer(
  era: HostileEra,
  raw: Incoming,
  caller: string,
  counts: CallCounts,
): Record<string, unknown> | undefined {
  const evil = era === 'markup' ? MARKUP : EVIL;
  const message = strip(raw, era === 'markup' ? [MARKUP, NAME_MARKUP] : [EVIL]) as Incoming;
  if (message.id === undefined) return undefined;
  if (message.method === 'tools/call') {
    const name = String(message.params?.name ?? '');
    counts[name] = (counts[name] ?? 0) + 1;
  }
  if (era === 'risky') {
    if (message.method === 'tools/list') {
      const tools = [...AGREEABLE_TOOLS.slice(0, 2), ...RISKY_TOOLS];
      return { jsonrpc: '2.0', id: message.id, result: { resultType: 'complete', tools } };
    }
    return agreeableAnswer('echo', message, caller);
  }
  let reply = agreeableAnswer('echo', message, caller) as Record<string, unknown>;
  if (message.method === 'server/discover') {
    const result = reply.result as Record<string, unknown>;
    reply = {
      ...reply,
      result: {
        ...result,
        _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'tiny', version: '1.0.0' } },
      },
    };
  }
  if (message.method === 'tools/call') {
    const args = (message.params?.arguments ?? {}) as Record<string, unknown>;
    const id = args['workspace_id'];
    if (
      era === 'markup' &&
      message.params?.name === 'read_workspace' &&
      !(typeof id === 'string' && id.startsWith('ws-'))
    )
      reply = {
        jsonrpc: '2.0',
        id: message.id,
        error: { code: -32602, message: `unknown workspace ${String(id)}` },
      };
    else {
      const result = reply.result as Record<string, unknown>;
      reply = { ...reply, result: { ...result, notes: { [`key${evil}`]: evil } } };
    }
  }
  return poison(reply, evil) as Record<string, unknown>;
}
