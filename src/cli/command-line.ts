/**
 * `--stdio "<command line>"`: split like a POSIX shell would, but run without one. What only a
 * shell could run (pipes, redirections, `&&`, comments, `FOO=1 cmd`) is refused with what to do.
 * The same splitter reads command lines from the environment (`CXG_MCP_STDIO_CMD`), named by
 * `source` in its messages.
 */
import { parse as shellParse } from 'shell-quote';
import { ProbeUsageError } from '../errors.js';

/**
 * Splits words like a POSIX shell would, refusing what only a shell could run. `source` names
 * where the line came from (`--stdio`, `CXG_MCP_STDIO_ARGS`) in the error.
 */
export function splitArguments(line: string, source = '--stdio'): string[] {
  // Variables stay literal: no shell runs, so nothing would expand them.
  const tokens = shellParse(line, (name) => `$${name}`);
  const words: string[] = [];
  for (const t of tokens) {
    if (typeof t === 'string') words.push(t);
    else if ('op' in t && t.op === 'glob') words.push(t.pattern);
    else if ('op' in t)
      throw new ProbeUsageError(`${source} runs no shell; remove '${t.op}' from the command line`);
    else
      throw new ProbeUsageError(
        `${source} runs no shell; remove the comment from the command line`,
      );
  }
  return words;
}

/** Splits a command line like a POSIX shell would, refusing what only a shell could run. */
export function splitCommandLine(
  line: string,
  source = '--stdio',
): { command: string; args: string[] } {
  const [command, ...args] = splitArguments(line, source);
  if (command === undefined || command.length === 0)
    throw new ProbeUsageError(`${source} needs a command line`);
  // Without a shell, `FOO=1 node server.js` would run a program called `FOO=1`.
  const assignment = /^([A-Za-z_][A-Za-z0-9_]*)=/.exec(command);
  if (assignment !== null)
    throw new ProbeUsageError(
      `${source} runs no shell, so environment assignments ('${assignment[1]}=…') are not supported: ` +
        `set the variable for stateguard itself (the server inherits its environment), ` +
        `e.g. ${assignment[1]}=… stateguard scan --stdio '…', or run --stdio 'env ${command} …'`,
    );
  return { command, args };
}
