/**
 * `--stdio "<command line>"`: split like a POSIX shell would, but run without one. What only a
 * shell could run (pipes, redirections, `&&`, comments, `FOO=1 cmd`) is refused with what to do.
 */
import { parse as shellParse } from 'shell-quote';
import { ProbeUsageError } from '../errors.js';

/** Splits a command line like a POSIX shell would, refusing what only a shell could run. */
export function splitCommandLine(line: string): { command: string; args: string[] } {
  // Variables stay literal: no shell runs, so nothing would expand them.
  const tokens = shellParse(line, (name) => `$${name}`);
  const words: string[] = [];
  for (const t of tokens) {
    if (typeof t === 'string') words.push(t);
    else if ('op' in t && t.op === 'glob') words.push(t.pattern);
    else if ('op' in t)
      throw new ProbeUsageError(`--stdio runs no shell; remove '${t.op}' from the command line`);
    else
      throw new ProbeUsageError('--stdio runs no shell; remove the comment from the command line');
  }
  const [command, ...args] = words;
  if (command === undefined || command.length === 0)
    throw new ProbeUsageError('--stdio needs a command line');
  // Without a shell, `FOO=1 node server.js` would run a program called `FOO=1`.
  const assignment = /^([A-Za-z_][A-Za-z0-9_]*)=/.exec(command);
  if (assignment !== null)
    throw new ProbeUsageError(
      `--stdio runs no shell, so environment assignments ('${assignment[1]}=…') are not supported: ` +
        `set the variable for stateguard itself (the server inherits its environment), ` +
        `e.g. ${assignment[1]}=… stateguard scan --stdio '…', or run --stdio 'env ${command} …'`,
    );
  return { command, args };
}
