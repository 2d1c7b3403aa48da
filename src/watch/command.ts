/**
 * What `stateguard watch` does once its flags are read: open the capture, run one proxy until it
 * ends (stdio: the server exits; HTTP: SIGINT or SIGTERM), then judge the capture it wrote, as
 * `stateguard check` would, and report. The judgement reads the capture file back, so the live run
 * and a later `check` of the same file give the same findings by construction.
 */
import { readFileSync } from 'node:fs';
import type { TransportKind } from '../probe/model/target.js';
import { REPORTERS, type EvidenceMode, type ReportFormat } from '../report/index.js';
import type { RunReport } from '../probe/model/report.js';
import { sourceRootOf } from '../report/sarif-location.js';
import { CaptureWriter, parseCapture } from './capture.js';
import { CaptureFile } from './capture-file.js';
import { startHttpProxy } from './http-proxy.js';
import { judge } from './judge.js';
import type { PrincipalSources } from './principal.js';
import { captureReport } from './report.js';
import { startStdioProxy } from './stdio-proxy.js';

/** A validated `watch` run. */
export interface WatchRun {
  readonly target:
    | { readonly kind: 'stdio'; readonly command: string; readonly args: readonly string[] }
    | {
        readonly kind: 'http';
        readonly upstream: URL;
        readonly host: string;
        readonly port: number;
      };
  /** Display of the target for the capture header (the command line or URL as given). */
  readonly display: string;
  readonly capture: string;
  readonly principal: PrincipalSources;
  readonly maxAgeMs?: number;
  readonly format: ReportFormat;
  readonly output?: string;
  readonly evidence: EvidenceMode;
}

/** Judges the capture file written by a run. */
export function judgeCaptureFile(
  file: string,
  transport: TransportKind,
  maxAgeMs: number | undefined,
  startedAt: number,
): RunReport | string {
  const capture = parseCapture(readFileSync(file, 'utf8'));
  if ('problem' in capture) return capture.problem;
  return captureReport(
    judge(capture.lines, maxAgeMs === undefined ? {} : { maxAgeMs }),
    capture.lines,
    {
      file,
      transport,
      target: String(capture.header.target),
      startedAt: new Date(startedAt).toISOString(),
      ms: Date.now() - startedAt,
    },
  );
}

/** Runs the proxy; resolves with the report (or why there is none) and the server's exit code. */
export async function runWatch(
  run: WatchRun,
  err: (line: string) => void,
): Promise<{ report: RunReport | string; exitCode?: number }> {
  const started = Date.now();
  const file = new CaptureFile(run.capture);
  const writer = new CaptureWriter(run.target.kind, run.display, file.write);
  let exitCode: number | undefined;
  try {
    if (run.target.kind === 'stdio') {
      const proxy = startStdioProxy({
        command: run.target.command,
        args: run.target.args,
        capture: writer,
        principal: run.principal,
      });
      // The client stops the proxy as it would stop the server: the server gets the signal.
      const forward = (signal: NodeJS.Signals): void => {
        proxy.child.kill(signal);
      };
      process.on('SIGINT', forward);
      process.on('SIGTERM', forward);
      exitCode = await proxy.exited;
      process.off('SIGINT', forward);
      process.off('SIGTERM', forward);
    } else {
      const proxy = await startHttpProxy({
        upstream: run.target.upstream,
        host: run.target.host,
        port: run.target.port,
        capture: writer,
        principal: run.principal,
      });
      err(`[watch] listening ${proxy.url}`);
      await new Promise<void>((resolve) => {
        process.once('SIGINT', () => resolve());
        process.once('SIGTERM', () => resolve());
      });
      await proxy.close();
    }
  } finally {
    file.close();
  }
  return {
    report: judgeCaptureFile(run.capture, run.target.kind, run.maxAgeMs, started),
    ...(exitCode === undefined ? {} : { exitCode }),
  };
}

/** The rendered report of a run. */
export function renderWatchReport(report: RunReport, run: WatchRun): string {
  return REPORTERS[run.format].render(report, {
    color: false,
    evidence: run.evidence,
    sourceRoot: sourceRootOf(process.env, process.cwd()),
  });
}
