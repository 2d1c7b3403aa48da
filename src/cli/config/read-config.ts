/**
 * Reading an MCP client configuration file: bounded, parsed as JSON with comments and trailing
 * commas (as VS Code allows; `jsonc-parser`, the parser VS Code itself uses), and turned into one
 * {@link ConfigServer} per entry with the 1-based line of its key. A file that cannot be read or
 * parsed, or an entry of the wrong shape, is a usage error naming the file, the line and why.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { parseTree, printParseErrorCode } from 'jsonc-parser';
import type { Node, ParseError } from 'jsonc-parser';
import { ProbeUsageError } from '../../errors.js';
import { formatOf, serversOf, type ConfigServer } from './formats.js';

/** The largest configuration file read (`~/.claude.json` carries history besides its servers). */
export const MAX_CONFIG_BYTES = 8 * 1024 * 1024;
/** The most servers one file may declare. */
export const MAX_SERVERS = 500;

/** A parsed configuration file. */
export interface ConfigFile {
  /** As named on the command line or as found. */
  readonly file: string;
  readonly format: string;
  readonly servers: ConfigServer[];
}

function readBounded(file: string, absolute: string): string {
  let fd: number;
  try {
    fd = openSync(absolute, 'r');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    throw new ProbeUsageError(`cannot read --config '${file}': ${code}`);
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new ProbeUsageError(`--config '${file}' is not a file`);
    if (stat.size > MAX_CONFIG_BYTES)
      throw new ProbeUsageError(
        `--config '${file}' is ${stat.size} bytes, more than the ${MAX_CONFIG_BYTES} read`,
      );
    // Read no more than the bound even if the file grows meanwhile.
    const buffer = Buffer.alloc(Math.min(stat.size, MAX_CONFIG_BYTES) + 1);
    let length = 0;
    for (;;) {
      const n = readSync(fd, buffer, length, buffer.length - length, null);
      if (n === 0) break;
      length += n;
      if (length > MAX_CONFIG_BYTES)
        throw new ProbeUsageError(
          `--config '${file}' is more than the ${MAX_CONFIG_BYTES} bytes read`,
        );
      if (length === buffer.length) break;
    }
    return buffer.subarray(0, length).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

/** 1-based line of each offset, from the offsets where lines start. */
export function lineFinder(text: string): (offset: number) => number {
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) starts.push(i + 1);
  return (offset) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((starts[mid] as number) <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
}

/** Parses `text` (the contents of `file`) into its servers. */
export function parseConfig(text: string, file: string, cwd: string): ConfigFile {
  const errors: ParseError[] = [];
  const lineOf = lineFinder(text);
  let root: Node | undefined;
  try {
    root = parseTree(text.replace(/^\uFEFF/, ' '), errors, {
      allowTrailingComma: true,
      disallowComments: false,
    });
  } catch (error) {
    // A hostile nesting depth overflows any recursive parser: a usage error, not a crash.
    throw new ProbeUsageError(
      `--config '${file}': cannot parse: ${error instanceof RangeError ? 'nested too deeply' : 'invalid'}`,
    );
  }
  const first = errors[0];
  if (first !== undefined)
    throw new ProbeUsageError(
      `--config '${file}' line ${lineOf(first.offset)}: not valid JSON (${printParseErrorCode(first.error)})`,
    );
  if (root === undefined || root.type !== 'object')
    throw new ProbeUsageError(`--config '${file}': expected a JSON object at the top`);
  const absolute = isAbsolute(file) ? file : resolve(cwd, file);
  const format = formatOf(absolute, root);
  const servers = serversOf(root, { file, absolute, format, cwd, lineOf });
  if (servers.length > MAX_SERVERS)
    throw new ProbeUsageError(
      `--config '${file}' declares ${servers.length} servers, more than the ${MAX_SERVERS} scanned`,
    );
  return { file, format, servers };
}

/** Reads and parses the configuration file `file` (relative to `cwd`). */
export function readConfig(file: string, cwd: string): ConfigFile {
  const absolute = isAbsolute(file) ? file : resolve(cwd, file);
  return parseConfig(readBounded(file, absolute), file, cwd);
}
