/**
 * `stateguard watch wrap` / `unwrap`: put the proxy in front of the stdio servers of a client
 * configuration (Claude Desktop, Claude Code, Cursor, VS Code, Windsurf: the lists the scanner
 * reads, `cli/config/formats.ts`), and take it out again byte for byte.
 *
 * Wrapping replaces the text of one entry's value, and nothing else in the file: the new entry
 * keeps every key of the old one, runs `stateguard watch --stdio "<old command line>"` instead, and
 * carries the old value's exact text (base64url) in the environment variable
 * {@link ORIGINAL_MARKER}, which every client passes to the server and the proxy ignores. Unwrap
 * puts that text back in place of the entry, so a wrap followed by an unwrap restores the bytes.
 */
import { getNodeValue, parseTree, type Node } from 'jsonc-parser';
import { quote } from 'shell-quote';
import { ProbeUsageError } from '../errors.js';

/** The environment variable that keeps an entry's original text. */
export const ORIGINAL_MARKER = 'STATEGUARD_WATCH_ORIGINAL';

/** How the wrapped entry starts the proxy: a program and the arguments before `watch`. */
export interface ProxyLauncher {
  readonly command: string;
  readonly args: readonly string[];
}

/** One entry changed. */
export interface WrapChange {
  readonly name: string;
  readonly capture?: string;
}

/** The lists of servers a configuration may hold, as node paths. */
function serverLists(root: Node): Node[] {
  const at = (node: Node | undefined, key: string): Node | undefined =>
    node?.type === 'object'
      ? node.children?.find((p) => p.children?.[0]?.value === key)?.children?.[1]
      : undefined;
  const lists = [at(root, 'mcpServers'), at(root, 'servers'), at(at(root, 'mcp'), 'servers')];
  for (const project of at(root, 'projects')?.children ?? [])
    lists.push(at(project.children?.[1], 'mcpServers'));
  return lists.filter((n): n is Node => n?.type === 'object');
}

interface Entry {
  readonly name: string;
  readonly value: Node;
  readonly object: Record<string, unknown>;
}

function entriesOf(text: string): Entry[] {
  const root = parseTree(text.replace(/^\uFEFF/, ' '), [], {
    allowTrailingComma: true,
    disallowComments: false,
  });
  if (root?.type !== 'object') throw new ProbeUsageError('expected a JSON object at the top');
  const out: Entry[] = [];
  for (const list of serverLists(root))
    for (const property of list.children ?? []) {
      const [key, value] = property.children ?? [];
      if (key === undefined || value?.type !== 'object') continue;
      out.push({
        name: String(key.value),
        value,
        object: getNodeValue(value) as Record<string, unknown>,
      });
    }
  return out;
}

/** The column an entry's key starts at, for indenting the new value like the old one. */
function indentAt(text: string, offset: number): string {
  const start = text.lastIndexOf('\n', offset) + 1;
  return /^[ \t]*/.exec(text.slice(start, offset))?.[0] ?? '';
}

/** A capture file name for a server: its name with only safe characters. */
export function captureName(name: string): string {
  const safe = name
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^[-.]+/, '')
    .slice(0, 64);
  return `${safe === '' ? 'server' : safe}.jsonl`;
}

/** Replaces spans of `text`, last first, so earlier offsets stay valid. */
function splice(
  text: string,
  edits: { offset: number; length: number; content: string }[],
): string {
  let out = text;
  for (const e of [...edits].sort((a, b) => b.offset - a.offset))
    out = out.slice(0, e.offset) + e.content + out.slice(e.offset + e.length);
  return out;
}

/**
 * `text` with the stdio servers named (all when `only` is undefined) run through the proxy,
 * capturing to `<captureDir>/<name>.jsonl`. An entry already wrapped is left alone.
 */
export function wrapConfig(
  text: string,
  launcher: ProxyLauncher,
  captureDir: string,
  only?: string,
): { text: string; changes: WrapChange[] } {
  const edits: { offset: number; length: number; content: string }[] = [];
  const changes: WrapChange[] = [];
  for (const e of entriesOf(text)) {
    if (only !== undefined && e.name !== only) continue;
    const { command, args, env } = e.object;
    if (typeof command !== 'string') continue;
    const envObject =
      typeof env === 'object' && env !== null && !Array.isArray(env)
        ? (env as Record<string, unknown>)
        : {};
    if (ORIGINAL_MARKER in envObject) continue;
    const argv = Array.isArray(args) ? args.map(String) : [];
    const original = text.slice(e.value.offset, e.value.offset + e.value.length);
    const capture = `${captureDir.replace(/\/+$/, '')}/${captureName(e.name)}`;
    const wrapped = {
      ...e.object,
      command: launcher.command,
      args: [
        ...launcher.args,
        ...['watch', '--stdio', quote([command, ...argv]), '--capture', capture],
      ],
      env: { ...envObject, [ORIGINAL_MARKER]: Buffer.from(original).toString('base64url') },
    };
    const indent = indentAt(text, e.value.offset);
    const content = JSON.stringify(wrapped, null, 2).replace(/\n/g, `\n${indent}`);
    edits.push({ offset: e.value.offset, length: e.value.length, content });
    changes.push({ name: e.name, capture });
  }
  if (only !== undefined && changes.length === 0)
    throw new ProbeUsageError(`no unwrapped stdio server named '${only}'`);
  return { text: splice(text, edits), changes };
}

/** `text` with the wrapped servers named (all when `only` is undefined) restored exactly. */
export function unwrapConfig(text: string, only?: string): { text: string; changes: WrapChange[] } {
  const edits: { offset: number; length: number; content: string }[] = [];
  const changes: WrapChange[] = [];
  for (const e of entriesOf(text)) {
    if (only !== undefined && e.name !== only) continue;
    const env = e.object['env'];
    const marker =
      typeof env === 'object' && env !== null
        ? (env as Record<string, unknown>)[ORIGINAL_MARKER]
        : undefined;
    if (typeof marker !== 'string') continue;
    const original = Buffer.from(marker, 'base64url').toString('utf8');
    // The marker must still be an entry: anything else was not written by wrap.
    const root = parseTree(original);
    if (root?.type !== 'object') continue;
    edits.push({ offset: e.value.offset, length: e.value.length, content: original });
    changes.push({ name: e.name });
  }
  if (only !== undefined && changes.length === 0)
    throw new ProbeUsageError(`no wrapped server named '${only}'`);
  return { text: splice(text, edits), changes };
}
