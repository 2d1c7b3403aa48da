/**
 * A scan whose arguments are valid (`scan-command.ts` parsed them): one target, every configured
 * server, or a registry's list; the report rendered and written, the verdicts turned into an exit code.
 */
import { baselineText } from './write-baseline.js';
import { applyBaseline, STALE_REASON } from '../probe/runner/baseline.js';
import { planTarget, runScan } from '../probe/runner/scan.js';
import { planHeadline, renderPlan } from '../report/plan.js';
import type { ScanProgress } from '../probe/runner/scan.js';
import { REPORTERS } from '../report/index.js';
import { summaryLine } from '../report/text.js';
import type { ScanArgs } from './scan-args.js';
import { runConfigScan } from './config-command.js';
import {
  cutShortLine,
  deliver,
  exitCodeOf,
  nothingDecidedLines,
  progressLine,
  renderOptions,
  sharedScanConfig,
  undecidedLines,
  unmatchedLines,
  writeBaseline,
} from './scan-common.js';

/** Runs the scan these arguments ask for; resolves with the exit code. */
export async function runParsedScan(args: ScanArgs, err: (line: string) => void): Promise<number> {
  if (args.config !== undefined) return runConfigScan(args, args.config, err);
  if (args.registry !== undefined) {
    // Loaded only for a registry scan: its schemas and fetch cost a tenth of a second a start.
    const { runRegistryScan } = await import('./registry-command.js');
    return runRegistryScan(args, args.registry, err);
  }
  const shared = sharedScanConfig(args);
  if (args.planOnly) return printPlan(args, shared, err);
  const scanned = await runScan({
    ...shared,
    target: args.target,
    identities: args.identities,
    ...(args.headers.length > 0 ? { headers: args.headers } : {}),
    ...(args.secrets.length > 0 ? { secrets: args.secrets } : {}),
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
  undecidedLines(report, err);
  nothingDecidedLines(report, err);
  cutShortLine(report, err);
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
 * `--plan`: opens the target, reads its lists, prints the call plan (text, or JSON with
 * `--format json`) and calls nothing. Exit 0, or 4 when the target answered nothing usable.
 */
async function printPlan(
  args: Extract<ScanArgs, { target: object }>,
  shared: ReturnType<typeof sharedScanConfig>,
  err: (line: string) => void,
): Promise<number> {
  const planned = await planTarget({
    ...shared,
    target: args.target,
    identities: args.identities,
    ...(args.headers.length > 0 ? { headers: args.headers } : {}),
    ...(args.secrets.length > 0 ? { secrets: args.secrets } : {}),
  });
  for (const name of planned.unlisted)
    err(`stateguard scan: warning: --allow-tool ${name}: the target lists no tool of that name`);
  if (planned.problem !== undefined) err(`stateguard scan: ${planned.problem}`);
  const text =
    args.format === 'json'
      ? `${JSON.stringify({ target: planned.display, plan: planned.plan }, null, 2)}\n`
      : renderPlan(planned.plan, { color: renderOptions(args).color });
  if (!deliver(text, args.output, planHeadline(planned.plan), err)) return 2;
  return planned.problem === undefined ? 0 : 4;
}
