/**
 * `stateguard scan`: parse, scan, render, write, and turn the verdicts into an exit code.
 *
 * A report is written whatever happened to the target (unreachable, missing command, hanging):
 * only bad usage ends without one (exit 2). The scanner itself (`scan-run.ts`) loads only once the
 * arguments are valid, and the help text only for `--help`: a usage error does not pay for either.
 */
import { argsOrExit, stderrLine } from './subcommand.js';
import { parseScanArgs } from './scan-args.js';
import { engineRequested } from './engine-env.js';

/** Runs `stateguard scan` with these arguments; resolves with the exit code. */
export async function runScanCommand(argv: readonly string[]): Promise<number> {
  // Progress, warnings and usage errors quote what the target, a config file or the user wrote:
  // escaped, never obeyed, and one line each (report/visible.ts): a value's newline cannot start a
  // line of its own (a CI runner's workflow command, a forged progress line).
  const err = stderrLine;
  const read = await argsOrExit(
    'scan',
    async () => (await import('./scan-help.js')).SCAN_HELP,
    () => parseScanArgs(argv, process.env),
    async (message) => {
      // The engine discards the output of a template that exits non-zero: say it in the document.
      if (!engineRequested(argv, process.env)) return undefined;
      const { certXGenErrored } = await import('../report/cert-x-gen.js');
      process.stdout.write(certXGenErrored(`stateguard: ${message}`));
      return 0;
    },
  );
  if ('exit' in read) return read.exit;
  const { args } = read;
  for (const warning of args.warnings) err(`stateguard scan: warning: ${warning}`);
  // The target runs in a process group of its own and does not see the terminal's Ctrl-C: turn the
  // signal into an exit, whose hook stops the target's processes (probe/target/stdio.ts).
  const stop = (signal: NodeJS.Signals): void => {
    err(`stateguard scan: stopped by ${signal}`);
    process.exit(signal === 'SIGINT' ? 130 : 143);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return (await import('./scan-run.js')).runParsedScan(args, err);
}
