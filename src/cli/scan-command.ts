/**
 * `stateguard scan`: parse, scan, render, write, and turn the verdicts into an exit code.
 *
 * A report is written whatever happened to the target (unreachable, missing command, hanging):
 * only bad usage ends without one (exit 2).
 */
import { writeFileSync } from 'node:fs';
import { baselineText } from './write-baseline.js';
import { ProbeUsageError } from '../errors.js';
import { applyBaseline, failsRun, STALE_REASON, UNMATCHED_REASON } from '../probe/baseline.js';
import { nothingDecided } from '../probe/decided.js';
import { runScan } from '../probe/scan.js';
import type { ScanProgress } from '../probe/scan.js';
import type { BaselineSummary, RunReport } from '../probe/types.js';
import { certXGenErrored } from '../report/cert-x-gen.js';
import { REPORTERS } from '../report/index.js';
import { sourceRootOf } from '../report/sarif-location.js';
import { summaryLine } from '../report/text.js';
import { visibleLine } from '../report/visible.js';
import { parseScanArgs, SCAN_HELP, type CommonScanArgs } from './scan-args.js';
import { engineRequested } from './engine-env.js';
import { runConfigScan } from './config-command.js';
import type { RenderOptions } from '../report/types.js';
import type { SharedScanConfig } from './config/scan-servers.js';

/**
 * Exit code of a finished scan: 1 when anything is confirmed and not baselined, or a baseline
 * entry is stale; else 4 when no probe decided anything (each skipped or errored, or none ran),
 * unless `allowUndecided`; else 3 when anything errored or the target answered nothing usable;
 * else 0.
 */
export function exitCodeOf(report: RunReport, allowUndecided = false): 0 | 1 | 3 | 4 {
  if (failsRun(report)) return 1;
  if (!allowUndecided && nothingDecided(report)) return 4;
  if (report.problem !== undefined || report.probes.some((p) => p.verdict === 'errored')) return 3;
  return 0;
}

export function progressLine(event: ScanProgress): string {
  switch (event.phase) {
    case 'open':
      return `scanning ${event.target}`;
    case 'opened':
      return `protocol era ${event.era}, ${event.tools} tools`;
    case 'probe':
      return `probe ${event.id}…`;
    case 'result':
      return `probe ${event.result.id}: ${event.result.verdict} (${event.result.ms} ms)`;
  }
}

/** Runs `stateguard scan` with these arguments; resolves with the exit code. */
export async function runScanCommand(argv: readonly string[]): Promise<number> {
  // Progress, warnings and usage errors quote what the target, a config file or the user wrote:
  // escaped, never obeyed, and one line each (report/visible.ts): a value's newline cannot start a
  // line of its own (a CI runner's workflow command, a forged progress line).
  const err = (line: string): void => {
    process.stderr.write(`${visibleLine(line)}\n`);
  };
  let args: ReturnType<typeof parseScanArgs>;
  try {
    args = parseScanArgs(argv, process.env);
  } catch (error) {
    if (!(error instanceof ProbeUsageError)) throw error;
    err(`stateguard scan: ${error.message}`);
    // The engine discards the output of a template that exits non-zero: say it in the document.
    if (engineRequested(argv, process.env)) {
      process.stdout.write(certXGenErrored(`stateguard: ${error.message}`));
      return 0;
    }
    err(`Try 'stateguard scan --help'.`);
    return 2;
  }
  if (args === 'help') {
    process.stdout.write(SCAN_HELP);
    return 0;
  }
  for (const warning of args.warnings) err(`stateguard scan: warning: ${warning}`);
  // The target runs in a process group of its own and does not see the terminal's Ctrl-C: turn the
  // signal into an exit, whose hook stops the target's processes (probe/target/stdio.ts).
  const stop = (signal: NodeJS.Signals): void => {
    err(`stateguard scan: stopped by ${signal}`);
    process.exit(signal === 'SIGINT' ? 130 : 143);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  if (args.config !== undefined) return runConfigScan(args, args.config, err);
  const shared = sharedScanConfig(args);
  const scanned = await runScan({
    ...shared,
    target: args.target,
    identities: args.identities,
    ...(args.headers.length > 0 ? { headers: args.headers } : {}),
    settings: { ...shared.settings, ...(args.peer === undefined ? {} : { peer: args.peer }) },
    ...(args.quiet
      ? {}
      : { onProgress: (e: ScanProgress) => err(`stateguard: ${progressLine(e)}`) }),
  });
  const report = args.baseline ? applyBaseline(scanned, args.baseline) : scanned;
  // A stale entry fails the run; say so on stderr too, where CI logs look, whatever the format.
  const { baseline } = report;
  for (const entry of baseline?.stale ?? []) {
    err(
      `stateguard scan: stale baseline entry '${entry}': ${STALE_REASON}; remove it from ${baseline?.file ?? '--baseline'}`,
    );
  }
  if (baseline !== undefined) unmatchedLines(baseline, err);
  if (
    args.writeBaseline !== undefined &&
    !writeBaseline(args.writeBaseline, baselineText(report, new Date()), err)
  )
    return 2;
  const rendered = REPORTERS[args.format].render(report, renderOptions(args));
  if (!deliver(rendered, args.output, summaryLine(report), err)) return 2;
  // The engine reads the verdict from metadata.status, and drops the output of a non-zero exit.
  return args.engine ? 0 : exitCodeOf(report, args.allowUndecided);
}

/**
 * One stderr line per baseline entry that matched no target: a warning, or under
 * `--strict-baseline` what fails the run.
 */
export function unmatchedLines(baseline: BaselineSummary, err: (line: string) => void): void {
  for (const entry of baseline.unmatched)
    err(
      `stateguard scan: ${baseline.strict === true ? '' : 'warning: '}unmatched baseline entry '${entry}': ${UNMATCHED_REASON}, so it accepts nothing${baseline.strict === true ? ' (--strict-baseline fails the run)' : ''}; fix its target or remove it from ${baseline.file}`,
    );
}

/** What every scan takes from the flags, whatever its target (one, or each configured server). */
export function sharedScanConfig(args: CommonScanArgs): SharedScanConfig {
  return {
    probes: args.probes,
    principalMetaKey: args.principalMetaKey,
    ...(args.identityHeader === undefined ? {} : { identityHeader: args.identityHeader }),
    ...(args.identityEnv === undefined ? {} : { identityEnv: args.identityEnv }),
    includeDestructive: args.includeDestructive,
    allowMintedInRisky: args.allowMintedInRisky,
    timeoutMs: args.timeoutMs,
    deadlineMs: args.deadlineMs,
    serial: args.serial,
    startupTimeoutMs: args.startupTimeoutMs,
    maxAnswerBytes: args.maxAnswerBytes,
    settings: args.expiryWaitMs === undefined ? {} : { expiryWaitMs: args.expiryWaitMs },
  };
}

/** Writes a `--write-baseline` file and says so; false when it cannot be written. */
export function writeBaseline(
  file: string,
  { text, entries }: { text: string; entries: number },
  err: (line: string) => void,
): boolean {
  try {
    writeFileSync(file, text);
  } catch (error) {
    err(
      `stateguard scan: cannot write --write-baseline '${file}': ${(error as NodeJS.ErrnoException).code ?? 'error'}`,
    );
    return false;
  }
  err(
    `stateguard scan: wrote ${entries} accepted finding${entries === 1 ? '' : 's'} to ${file}; gate later runs with --baseline ${file}`,
  );
  return true;
}

/** How the report is rendered: colour only for text on a terminal, unless `NO_COLOR` is set. */
export function renderOptions(args: CommonScanArgs): RenderOptions {
  const noColor = (process.env.NO_COLOR ?? '') !== '';
  const color = args.format === 'text' && !args.output && process.stdout.isTTY === true && !noColor;
  return {
    color,
    evidence: args.evidence,
    all: args.all,
    ...(args.sarifLocation === undefined ? {} : { sarifLocation: args.sarifLocation }),
    sourceRoot: sourceRootOf(process.env, process.cwd()),
  };
}

/**
 * Writes the rendered report to `--output` (the summary line then goes to stderr) or stdout;
 * false when the file cannot be written.
 */
export function deliver(
  rendered: string,
  output: string | undefined,
  summary: string,
  err: (line: string) => void,
): boolean {
  if (output === undefined) {
    process.stdout.write(rendered);
    return true;
  }
  try {
    writeFileSync(output, rendered);
  } catch (error) {
    err(
      `stateguard scan: cannot write --output '${output}': ${(error as NodeJS.ErrnoException).code ?? 'error'}`,
    );
    return false;
  }
  err(summary);
  return true;
}
