/**
 * The client formats: which file is which, where each keeps its server list, and the shape of one
 * entry. Every format read here is a map from a server's name to its entry:
 *
 * | format           | file                                        | list                      |
 * | ---------------- | ------------------------------------------- | ------------------------- |
 * | `claude-desktop` | `claude_desktop_config.json`                | `mcpServers`              |
 * | `claude-code`    | `.mcp.json`, `~/.claude.json`               | `mcpServers` (and, in `~/.claude.json`, `projects[<cwd>].mcpServers`) |
 * | `cursor`         | `.cursor/mcp.json`                          | `mcpServers`              |
 * | `vscode`         | `.vscode/mcp.json`, the profile's `mcp.json`| `servers` (`inputs` beside it); `mcp.servers` in `settings.json` |
 * | `windsurf`       | `mcp_config.json`                           | `mcpServers`              |
 * | `generic`        | any other name                              | `mcpServers`, else `servers` |
 *
 * An entry is stdio (`command`, `args`, `env`, `envFile`, `cwd`) or remote (`url`, Windsurf's
 * `serverUrl`, `headers`), with an optional `type` (`stdio`, `http`, `streamable-http`, `sse`).
 * Values are kept as written; placeholders are substituted later (config/plan.ts).
 */
import { basename, dirname } from 'node:path';
import { findNodeAtLocation, getNodeValue } from 'jsonc-parser';
import type { Node } from 'jsonc-parser';
import { ProbeUsageError } from '../../errors.js';
import type { ServerSource } from '../../probe/model/report.js';
import { visibleLine } from '../../report/visible.js';

/** What one entry declares, before substitution. */
export type ServerSpec =
  | {
      readonly kind: 'stdio';
      readonly command: string;
      readonly args: readonly string[];
      /** `null` removes the variable (VS Code's rule). */
      readonly env: Readonly<Record<string, string | null>>;
      readonly envFile?: string;
      readonly cwd?: string;
    }
  | {
      readonly kind: 'http' | 'sse';
      readonly url: string;
      readonly headers: Readonly<Record<string, string>>;
    }
  /** A `type` the scanner does not speak (e.g. `ws`): reported, not scanned. */
  | { readonly kind: 'unsupported'; readonly type: string };

/** One declared server. */
export interface ConfigServer {
  readonly source: ServerSource;
  readonly spec: ServerSpec;
  /** `disabled: true` in the entry: the client does not start it, so neither does the scan. */
  readonly disabled: boolean;
  /** What `${workspaceFolder}` means for this file. */
  readonly workspaceFolder: string;
}

interface Where {
  readonly file: string;
  readonly absolute: string;
  readonly format: string;
  readonly cwd: string;
  readonly lineOf: (offset: number) => number;
}

/** The format of the file at `absolute`, by its name and then by its contents. */
export function formatOf(absolute: string, root: Node): string {
  const name = basename(absolute);
  const folder = basename(dirname(absolute));
  if (name === 'claude_desktop_config.json') return 'claude-desktop';
  if (name === '.mcp.json' || name === '.claude.json') return 'claude-code';
  if (name === 'mcp_config.json') return 'windsurf';
  if (name === 'mcp.json' && folder === '.cursor') return 'cursor';
  if (name === 'mcp.json' && (folder === '.vscode' || folder === 'User')) return 'vscode';
  if (name === 'settings.json' && findNodeAtLocation(root, ['mcp', 'servers'])) return 'vscode';
  return 'generic';
}

/**
 * The folder `${workspaceFolder}` names, and where a project's stdio servers start: the project
 * that holds `.vscode/`, `.cursor/` or `.windsurf/`, the folder of a `.mcp.json`, else the
 * current directory (a user-level file has no project of its own).
 */
function workspaceOf(absolute: string, format: string, cwd: string): string {
  const folder = dirname(absolute);
  if (['.vscode', '.cursor', '.windsurf'].includes(basename(folder))) return dirname(folder);
  if (basename(absolute) === '.mcp.json') return folder;
  return format === 'generic' ? folder : cwd;
}

/** The server lists of `root`, with the path each sits at. */
function lists(root: Node, where: Where): Node[] {
  const at = (path: (string | number)[]): Node | undefined => findNodeAtLocation(root, path);
  const found: (Node | undefined)[] =
    where.format === 'vscode'
      ? [at(['servers']) ?? at(['mcp', 'servers'])]
      : where.format === 'generic'
        ? [at(['mcpServers']) ?? at(['servers'])]
        : [at(['mcpServers'])];
  // Claude Code keeps a project's servers in ~/.claude.json under the project's absolute path.
  if (basename(where.absolute) === '.claude.json')
    found.push(at(['projects', where.cwd, 'mcpServers']));
  const present = found.filter((n): n is Node => n !== undefined);
  if (present.length === 0 && found.length > 0 && basename(where.absolute) !== '.claude.json') {
    const key = where.format === 'vscode' ? '"servers"' : '"mcpServers"';
    throw new ProbeUsageError(
      `--config '${where.file}': no ${key} object (read as ${where.format}; see docs/config.md)`,
    );
  }
  for (const n of present) {
    if (n.type !== 'object')
      throw new ProbeUsageError(
        `--config '${where.file}' line ${where.lineOf(n.offset)}: the server list must be an object`,
      );
  }
  return present;
}

const strings = (v: unknown): v is string[] =>
  Array.isArray(v) && v.every((x) => typeof x === 'string');

/** Reads one entry; a usage error for a shape no client would accept. */
function entry(value: unknown, bad: (why: string) => ProbeUsageError): ServerSpec {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw bad('an entry must be an object');
  const e = value as Record<string, unknown>;
  const type = e.type;
  if (type !== undefined && typeof type !== 'string') throw bad('"type" must be a string');
  const url = e.url ?? e.serverUrl;
  if (typeof e.command === 'string' && (type === undefined || type === 'stdio')) {
    if (e.args !== undefined && !strings(e.args)) throw bad('"args" must be an array of strings');
    const env: Record<string, string | null> = {};
    if (e.env !== undefined) {
      if (typeof e.env !== 'object' || e.env === null || Array.isArray(e.env))
        throw bad('"env" must be an object');
      for (const [k, v] of Object.entries(e.env as Record<string, unknown>)) {
        if (v !== null && !['string', 'number', 'boolean'].includes(typeof v))
          throw bad(`"env" value of ${visibleLine(k)} must be a string`);
        env[k] = v === null ? null : String(v);
      }
    }
    for (const key of ['envFile', 'cwd'] as const)
      if (e[key] !== undefined && typeof e[key] !== 'string')
        throw bad(`"${key}" must be a string`);
    return {
      kind: 'stdio',
      command: e.command,
      args: (e.args as string[] | undefined) ?? [],
      env,
      ...(typeof e.envFile === 'string' ? { envFile: e.envFile } : {}),
      ...(typeof e.cwd === 'string' ? { cwd: e.cwd } : {}),
    };
  }
  if (
    type !== undefined &&
    !['stdio', 'http', 'streamable-http', 'streamableHttp', 'sse'].includes(type)
  )
    return { kind: 'unsupported', type };
  if (type === 'stdio') throw bad('"type": "stdio" needs a "command" string');
  if (typeof url !== 'string') throw bad(`needs a "command" (stdio) or a "url" (HTTP)`);
  const headers: Record<string, string> = {};
  if (e.headers !== undefined) {
    if (typeof e.headers !== 'object' || e.headers === null || Array.isArray(e.headers))
      throw bad('"headers" must be an object');
    for (const [k, v] of Object.entries(e.headers as Record<string, unknown>)) {
      if (typeof v !== 'string') throw bad(`"headers" value of ${visibleLine(k)} must be a string`);
      headers[k] = v;
    }
  }
  return { kind: type === 'sse' ? 'sse' : 'http', url, headers };
}

/** Every server the file declares, in file order. */
export function serversOf(root: Node, where: Where): ConfigServer[] {
  const workspaceFolder = workspaceOf(where.absolute, where.format, where.cwd);
  const servers: ConfigServer[] = [];
  for (const list of lists(root, where)) {
    for (const property of list.children ?? []) {
      const [key, valueNode] = property.children ?? [];
      if (key === undefined || valueNode === undefined) continue;
      const name = String(key.value);
      const line = where.lineOf(key.offset);
      const bad = (why: string): ProbeUsageError =>
        new ProbeUsageError(
          `--config '${where.file}' line ${line}: server '${visibleLine(name)}': ${why}`,
        );
      const value: unknown = getNodeValue(valueNode);
      servers.push({
        source: { name, file: where.file, line, format: where.format },
        spec: entry(value, bad),
        disabled: (value as { disabled?: unknown }).disabled === true,
        workspaceFolder,
      });
    }
  }
  return servers;
}
