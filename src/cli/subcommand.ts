/**
 * What every subcommand does before it runs: read its arguments, print its help, or refuse a
 * usage error in one line with the hint and exit 2. Everything written to stderr is escaped.
 */
import { ProbeUsageError } from '../errors.js';
import { visibleLine } from '../report/visible.js';

/** One line on stderr, escaped (a target's or a file's text may be in it). */
export const stderrLine = (line: string): void => {
  process.stderr.write(`${visibleLine(line)}\n`);
};

/**
 * The arguments of `stateguard <name>`, or the exit code when there is nothing to run: 0 after the
 * help, 2 after a usage error. `onUsage` may answer a usage error its own way (the engine's
 * document) by returning the exit code; otherwise the hint follows the error.
 */
export function argsOrExit<T>(
  name: string,
  help: string,
  parse: () => T | 'help',
  onUsage?: (message: string) => number | undefined,
): { readonly args: T } | { readonly exit: number } {
  let parsed: T | 'help';
  try {
    parsed = parse();
  } catch (error) {
    if (!(error instanceof ProbeUsageError)) throw error;
    stderrLine(`stateguard ${name}: ${error.message}`);
    const own = onUsage?.(error.message);
    if (own !== undefined) return { exit: own };
    stderrLine(`Try 'stateguard ${name} --help'.`);
    return { exit: 2 };
  }
  if (parsed === 'help') {
    process.stdout.write(help);
    return { exit: 0 };
  }
  return { args: parsed };
}
