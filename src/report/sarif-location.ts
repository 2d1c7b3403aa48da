/**
 * Where a SARIF result points. GitHub code scanning drops a result without a physical location
 * ("locationFromSarifResult: expected at least one location") and reads `artifactLocation.uri` as
 * a path relative to the repository root, so every result names a file, in this order:
 * 1. the client configuration file that declared the server (`--config`), at the line of its entry,
 *    when that file lies inside the source root;
 * 2. the file given with `--sarif-location <path>[:<line>]` (single target);
 * 3. otherwise a stable pseudo-path, `.stateguard/<target>-<hash>`: the target's display text with
 *    everything but letters, digits, `.`, `_` and `-` turned into `-`, and 8 hex digits of its
 *    SHA-256 so two targets that read alike stay apart. It names no real file (GitHub shows the
 *    alert without a code snippet), never contains `/`, `..`, a scheme or a control character, and
 *    stays the same from run to run, so an alert keeps its identity.
 *
 * A configuration file outside the source root (a user's home directory) falls back to the
 * pseudo-path of the server's name: GitHub matches paths against the files of the repository, so a
 * path outside it can never be annotated (the run's properties still name the file).
 *
 * Paths are written as percent-encoded, `/`-separated relative references with `uriBaseId
 * %SRCROOT%`: no URL scheme (GitHub rejects a scheme there that differs from the checkout's) and
 * no absolute path.
 */
import { createHash } from 'node:crypto';
import { isAbsolute, normalize, relative, resolve, sep } from 'node:path';
import type { RunReport } from '../probe/model/report.js';

/** The directory SARIF paths are relative to, and the one relative paths were given from. */
export interface SourceRoot {
  /** The repository root: `GITHUB_WORKSPACE` when set, else the working directory. */
  readonly root: string;
  /** The working directory the scanner ran in (relative config paths are relative to it). */
  readonly cwd: string;
}

/** A file and line a result points at. */
export interface SarifPlace {
  /** A relative, percent-encoded URI reference, `/`-separated, resolved against `%SRCROOT%`. */
  readonly uri: string;
  readonly line: number;
  /** Why this place: shown as the location's message. */
  readonly why: string;
}

/** The uriBaseId every location uses. */
export const SRCROOT = '%SRCROOT%';

/** The directory pseudo-paths live under. */
export const PSEUDO_DIR = '.stateguard';

const MAX_NAME = 64;

/** The source root of a process: `GITHUB_WORKSPACE` when set (a runner), else `cwd`. */
export function sourceRootOf(env: NodeJS.ProcessEnv, cwd: string): SourceRoot {
  const workspace = env.GITHUB_WORKSPACE;
  return { root: workspace !== undefined && workspace !== '' ? workspace : cwd, cwd };
}

/**
 * `file` as a percent-encoded path relative to the source root, or undefined when it lies outside
 * it (or is the root itself). Without a root, a relative path is taken as already relative to it.
 */
export function repoRelative(file: string, roots: SourceRoot | undefined): string | undefined {
  let rel: string;
  if (roots === undefined) {
    if (isAbsolute(file)) return undefined;
    rel = normalize(file);
  } else {
    rel = relative(roots.root, resolve(roots.cwd, file));
  }
  const segments = rel.split(sep === '\\' ? /[\\/]/ : '/').filter((s) => s !== '' && s !== '.');
  if (segments.length === 0 || segments.includes('..') || isAbsolute(rel)) return undefined;
  return segments.map(encodeURIComponent).join('/');
}

/** The pseudo-path of a name: `.stateguard/<safe name>-<8 hex>`. */
export function pseudoPath(name: string): string {
  const safe = name
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    // A run of separators becomes one: `stdio:./server.js` reads `stdio-server.js`, never `..`.
    .replace(/[-.]*-[-.]*/g, '-')
    .replace(/\.{2,}/g, '.')
    .slice(0, MAX_NAME)
    .replace(/^[-.]+|[-.]+$/g, '');
  const hash = createHash('sha256').update(name).digest('hex').slice(0, 8);
  return `${PSEUDO_DIR}/${safe === '' ? 'target' : safe}-${hash}`;
}

/** The place a report's results point at (see the module comment for the order). */
export function placeOf(
  report: RunReport,
  given: { readonly uri: string; readonly line: number } | undefined,
  roots: SourceRoot | undefined,
): SarifPlace {
  const { server } = report;
  if (server !== undefined) {
    const uri = repoRelative(server.file, roots);
    if (uri !== undefined)
      return { uri, line: server.line, why: `MCP server "${server.name}" (${server.format})` };
    return {
      uri: pseudoPath(server.name),
      line: 1,
      why: `MCP server "${server.name}", declared outside the repository`,
    };
  }
  if (given !== undefined) return { ...given, why: `MCP server ${report.target.display}` };
  return {
    uri: pseudoPath(report.target.display),
    line: 1,
    why: `MCP server ${report.target.display} (no file declares it; a placeholder path)`,
  };
}

/**
 * `--sarif-location <path>[:<line>]` as a place, or a message saying why it cannot be one: the
 * file must lie inside the source root.
 */
export function parseSarifLocation(
  value: string,
  roots: SourceRoot,
): { uri: string; line: number } | string {
  const m = /^(.*?)(?::(\d+))?$/s.exec(value);
  const file = m?.[1] ?? value;
  const line = m?.[2] === undefined ? 1 : Number(m[2]);
  if (file === '') return 'needs a file path, e.g. --sarif-location src/server.ts';
  if (!Number.isSafeInteger(line) || line < 1) return `line must be 1 or more, got '${m?.[2]}'`;
  const uri = repoRelative(file, roots);
  if (uri === undefined)
    return `'${file}' is not inside the repository root ${roots.root} (GITHUB_WORKSPACE, else the working directory)`;
  return { uri, line };
}
