/**
 * What a scan of one target (`scan-command.ts`) and a scan of every configured server
 * (`config-command.ts`) share: the exit code of one report, the progress and baseline lines on
 * stderr, the scan settings taken from the flags, and writing the report and the baseline. On its
 * own so neither command imports the other's module in both directions.
 */
import { writeFileSync } from 'node:fs';
import { failsRun, UNMATCHED_REASON } from '../probe/runner/baseline.js';
import { nothingDecided, undecidedSurface } from '../probe/runner/decided.js';
import { probesById } from '../probe/runner/registry.js';
import type { ScanProgress } from '../probe/runner/scan.js';
import type { BaselineSummary, RunReport } from '../probe/model/report.js';
import { clipWords } from '../report/plan.js';
import { cutShortSentence } from '../probe/model/surface-map.js';
import { sourceRootOf } from '../report/sarif-location.js';
import type { RenderOptions } from '../report/types.js';
import type { SharedScanConfig } from './config/scan-servers.js';
import type { CommonScanArgs } from './scan-args.js';

/**
 * Exit code of a finished scan: 1 when anything is confirmed and not baselined, or a baseline
 * entry is stale; else 4 when no probe decided anything (each skipped or errored, or none ran),
 * unless `allowUndecided`; else 5 when a probe is undecided (its surface left alone by the call
 * plan; probe/decided.ts), unless `allowUndecided`; else 3 when anything errored or the target
 * answered nothing usable; else 0.
 */
export function exitCodeOf(report: RunReport, allowUndecided = false): 0 | 1 | 3 | 4 | 5 {
  if (failsRun(report)) return 1;
  if (!allowUndecided && nothingDecided(report)) return 4;
  if (!allowUndecided && undecidedSurface(report).length > 0) return 5;
  if (report.problem !== undefined || report.probes.some((p) => p.verdict === 'errored')) return 3;
  return 0;
}

/**
 * One stderr line per undecided probe, naming what would decide it: with `--output` the report is
 * in a file, and a CI log must still say why the gate failed.
 */
export function undecidedLines(report: RunReport, err: (line: string) => void, prefix = ''): void {
  for (const p of undecidedSurface(report)) {
    // A server may leave dozens of tools alone: three by name, then how many more, one line each.
    const all = p.decideWith ?? [];
    const named = all.slice(0, 3).join(' or ');
    const more = all.length > 3 ? ` (or ${all.length - 3} more, each in the report's plan)` : '';
    err(
      `stateguard scan: ${prefix}undecided ${p.id}: its surface may be there but was not tried; ${named}${more} would decide it (--allow-undecided passes without)`,
    );
  }
}

/** At most this many causes of a run that decided nothing, one line each; the rest are counted. */
const MAX_CAUSES = 3;
/** A cause quotes a probe's reason, which may quote the target: cut to this many code points. */
const MAX_CAUSE = 240;

/**
 * When no probe decided anything (exit 4), the cause on stderr, where a CI log looks when the
 * report went to `--output`: the target problem that stopped every probe, or each distinct reason
 * a probe skipped or errored (three, then how many more), with what would decide it. Probes named
 * by {@link undecidedLines} (the user's word would decide them) are not repeated here.
 */
export function nothingDecidedLines(
  report: RunReport,
  err: (line: string) => void,
  prefix = '',
): void {
  if (!nothingDecided(report)) return;
  const head = `stateguard scan: ${prefix}nothing decided`;
  const tail = ' (--allow-undecided passes without)';
  const n = report.probes.length;
  if (report.problem !== undefined) {
    const them = n === 1 ? 'its probe' : 'its probes';
    err(
      `${head}: target problem: ${clipWords(report.problem, MAX_CAUSE)}; with it fixed, ${them} would decide${tail}`,
    );
    return;
  }
  if (n === 0) {
    err(`${head}: no probe ran; name a probe that applies to this target with --probe${tail}`);
    return;
  }
  // One line per distinct reason: twelve probes stopped by one missing surface are one cause.
  const causes = new Map<string, string[]>();
  for (const p of report.probes) {
    if (p.verdict === 'skipped' && (p.decideWith?.length ?? 0) > 0) continue;
    const key = `${p.verdict}: ${clipWords(p.reason, MAX_CAUSE)}`;
    causes.set(key, [...(causes.get(key) ?? []), p.id]);
  }
  const entries = [...causes];
  for (const [cause, ids] of entries.slice(0, MAX_CAUSES)) {
    const named =
      ids.length > 2 ? `${ids.slice(0, 2).join(', ')} and ${ids.length - 2} more` : ids.join(', ');
    const decide = cause.startsWith('skipped')
      ? 'a target with that surface would decide it'
      : 'a run in which its controls hold would decide it (its evidence is in the report)';
    err(`${head}: ${named} ${cause}; ${decide}${tail}`);
  }
  if (entries.length > MAX_CAUSES)
    err(`${head}: and ${entries.length - MAX_CAUSES} more causes, each in the report${tail}`);
}

/**
 * When discovery was cut short (its time cap, its call budget), the one sentence that says so and
 * what helps (`raise --deadline`), on stderr: a skip's reason in a report file may be long, and a
 * CI log should say it whole.
 */
export function cutShortLine(report: RunReport, err: (line: string) => void, prefix = ''): void {
  const sentence = cutShortSentence(report.surface?.notReached);
  if (sentence !== undefined) err(`stateguard scan: ${prefix}${sentence}`);
}

/** One progress event as a line for stderr (the caller adds the prefix). */
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
    probes: probesById(args.probeIds),
    principalMetaKey: args.principalMetaKey,
    ...(args.identityHeader === undefined ? {} : { identityHeader: args.identityHeader }),
    ...(args.identityEnv === undefined ? {} : { identityEnv: args.identityEnv }),
    includeDestructive: args.includeDestructive,
    allowTools: args.allowTools,
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
