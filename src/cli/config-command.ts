/**
 * `stateguard scan --config`: scan every server the client configurations declare, at most
 * `--concurrency` at once, and write one combined report. Progress lines on stderr start with the
 * server's name in brackets.
 *
 * Exit code over all servers: 1 when any server has an unbaselined confirmed finding or a stale
 * baseline entry; else 4 when on any server no probe decided anything (it could not be started,
 * was unreachable, or every probe skipped or errored), or when no server was scanned at all, unless
 * `--allow-undecided`; else 5 when a probe on any server is undecided (its surface left alone by
 * the call plan), unless `--allow-undecided`; else 3 when any server errored; else 0. An entry left alone by design
 * (SSE-only, a transport the scanner does not speak) is reported but does not raise the exit code.
 */
import { createRedactor } from '../probe/evidence/evidence.js';
import { applyBaselineToServers, failsRun, STALE_REASON } from '../probe/runner/baseline.js';
import type { CombinedReport, RegistrySummary, RunReport } from '../probe/model/report.js';
import { REPORTERS } from '../report/index.js';
import { combinedSummaryLine, registryLine, serverCounts } from '../report/matrix.js';
import { visibleLine } from '../report/visible.js';
import type { ConfigSelection } from './config/select.js';
import { notScanned, scanServers } from './config/scan-servers.js';
import type { CommonScanArgs } from './scan-args.js';
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
import { combinedBaselineText } from './write-baseline.js';

/** The exit code of a combined report (see the module comment). */
export function combinedExitCode(
  report: CombinedReport,
  allowUndecided = false,
): 0 | 1 | 3 | 4 | 5 {
  if (report.servers.some(failsRun)) return 1;
  const scanned = report.servers.filter((r) => !notScanned(r));
  if (scanned.length === 0) return allowUndecided ? 3 : 4;
  const codes = scanned.map((r) => exitCodeOf(r, allowUndecided));
  return codes.includes(4) ? 4 : codes.includes(5) ? 5 : codes.includes(3) ? 3 : 0;
}

/** Runs the scan of `selection`; resolves with the exit code. */
export async function runConfigScan(
  args: CommonScanArgs,
  selection: ConfigSelection,
  err: (line: string) => void,
  registry?: Omit<RegistrySummary, 'counts'>,
): Promise<number> {
  if (selection.found !== undefined) {
    err(
      `stateguard scan: --config found ${selection.found.length} client configuration${selection.found.length === 1 ? '' : 's'}:`,
    );
    for (const l of selection.found) err(`  ${l.file} (${l.client})`);
  }
  for (const d of selection.disabled)
    err(`stateguard scan: not scanned (disabled in its file): ${d}`);
  // A problem or warning may quote a value the entry resolved from the environment (an envFile
  // path with a placeholder): redacted as its report is, stderr being a log too.
  for (const plan of selection.plans) {
    const redactor = createRedactor(plan.identities, plan.secrets);
    for (const w of plan.warnings) err(`stateguard scan: warning: ${redactor.string(w)}`);
    if (plan.problem !== undefined)
      err(`[${visibleLine(plan.source.name)}] stateguard: ${redactor.string(plan.problem)}`);
  }
  const combined = await scanServers(selection.plans, sharedScanConfig(args), {
    concurrency: selection.concurrency,
    configs: selection.files.map((f) => f.file),
    ...(args.quiet
      ? {}
      : {
          onProgress: (plan, e) =>
            err(`[${visibleLine(plan.source.name)}] stateguard: ${progressLine(e)}`),
        }),
  });
  const servers: RunReport[] = args.baseline
    ? applyBaselineToServers(combined.servers, args.baseline)
    : combined.servers;
  const report: CombinedReport = {
    ...combined,
    servers,
    ...(registry === undefined
      ? {}
      : { registry: { ...registry, counts: serverCounts({ servers }) } }),
  };
  const fromRegistry = registryLine(report);
  if (fromRegistry !== undefined) err(`stateguard: ${fromRegistry}`);
  for (const r of servers) {
    for (const entry of r.baseline?.stale ?? [])
      err(
        `stateguard scan: stale baseline entry '${entry}' (server ${r.server?.name ?? r.target.display}): ${STALE_REASON}; remove it from ${r.baseline?.file ?? '--baseline'}`,
      );
    if (r.baseline !== undefined) unmatchedLines(r.baseline, err);
    const server = `(server ${r.server?.name ?? r.target.display}) `;
    undecidedLines(r, err, server);
    // A server that was never started said its problem above, as the scan began.
    if (r.probes.length > 0) nothingDecidedLines(r, err, server);
    cutShortLine(r, err, server);
  }
  if (
    args.writeBaseline !== undefined &&
    !writeBaseline(args.writeBaseline, combinedBaselineText(servers, new Date()), err)
  )
    return 2;
  const reporter = REPORTERS[args.format];
  // The parser refused formats without a combined report; this keeps the promise visible.
  if (reporter.renderCombined === undefined) return 2;
  const rendered = reporter.renderCombined(report, renderOptions(args));
  return deliver(rendered, args.output, combinedSummaryLine(report), err)
    ? combinedExitCode(report, args.allowUndecided)
    : 2;
}
