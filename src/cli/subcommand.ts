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
 * help, 2 after a usage error. `help` may be a loader, so that only `--help` loads the text and what
 * it quotes. `onUsage` may answer a usage error its own way (the engine's document) by resolving
 * with the exit code; otherwise the hint follows the error.
 */
export async function argsOrExit<T>(
  name: string,
  help: string | (() => Promise<string>),
  parse: () => T | 'help',
  onUsage?: (message: string) => Promise<number | undefined>,
): Promise<{ readonly args: T } | { readonly exit: number }> {
  let parsed: T | 'help';
  try {
    parsed = parse();
  } catch (error) {
    if (!(error instanceof ProbeUsageError)) throw error;
    stderrLine(`stateguard ${name}: ${error.message}`);
    const own = await onUsage?.(error.message);
    if (own !== undefined) return { exit: own };
    stderrLine(`Try 'stateguard ${name} --help'.`);
    return { exit: 2 };
  }
  if (parsed === 'help') {
    process.stdout.write(typeof help === 'string' ? help : await help());
    return { exit: 0 };
  }
  return { args: parsed };
}
