/**
 * Scanning the servers of client configurations: each planned server is scanned as a single target
 * would be (its own session, deadline and report), at most `concurrency` at once; a server that is
 * not started gets a report that says why. The result is one {@link CombinedReport}.
 */
import { createRedactor } from '../../probe/evidence/evidence.js';
import {
  packageVersion,
  runScan,
  type ScanConfig,
  type ScanProgress,
} from '../../probe/runner/scan.js';
import type { CombinedReport, RunReport } from '../../probe/model/report.js';
import { pool } from '../pool.js';
import { NOT_SCANNED, type ServerPlan } from './plan.js';

/** What every server's scan shares (the target, identities, headers and redactions are its own). */
export type SharedScanConfig = Omit<
  ScanConfig,
  'target' | 'identities' | 'headers' | 'secrets' | 'onProgress' | 'identityHeader' | 'identityEnv'
> & {
  readonly identityHeader?: ScanConfig['identityHeader'];
  readonly identityEnv?: ScanConfig['identityEnv'];
};

/** True when the report is of an entry left alone by design (SSE-only, an unknown transport). */
export function notScanned(report: RunReport): boolean {
  return report.problem?.startsWith(NOT_SCANNED) === true;
}

/** `report` with `server` right after `tool`, where a reader looks first. */
function withServer(report: RunReport, plan: ServerPlan): RunReport {
  const { schemaVersion, tool, ...rest } = report;
  return { schemaVersion, tool, server: plan.source, ...rest };
}

/** The report of a server that was not started. */
function unstartedReport(plan: ServerPlan, problem: string): RunReport {
  const redactor = createRedactor(plan.identities, plan.secrets);
  return {
    schemaVersion: 1,
    tool: { name: 'stateguard', version: packageVersion() },
    server: plan.source,
    target: { kind: plan.transport, display: redactor.string(plan.display) },
    protocol: { era: 'unknown', discover: false, toolNames: [] },
    startedAt: new Date().toISOString(),
    ms: 0,
    problem: redactor.string(problem),
    undecided: 0,
    probes: [],
  };
}

/** Scans one planned server. */
async function scanOne(
  plan: ServerPlan,
  shared: SharedScanConfig,
  onProgress?: (event: ScanProgress) => void,
): Promise<RunReport> {
  if (plan.target === undefined || plan.problem !== undefined)
    return unstartedReport(plan, plan.problem ?? 'not started');
  const { identityHeader, identityEnv, ...rest } = shared;
  const http = plan.target.kind === 'http';
  const report = await runScan({
    ...rest,
    target: plan.target,
    identities: plan.identities,
    ...(plan.headers.length > 0 ? { headers: plan.headers } : {}),
    ...(plan.secrets.length > 0 ? { secrets: plan.secrets } : {}),
    // A carrier flag applies to the servers of its transport.
    ...(http && identityHeader !== undefined ? { identityHeader } : {}),
    ...(!http && identityEnv !== undefined ? { identityEnv } : {}),
    ...plan.carrier,
    ...(onProgress === undefined ? {} : { onProgress }),
  });
  return withServer(report, plan);
}

/** What {@link scanServers} reports as it goes. */
export type ServerProgress = (server: ServerPlan, event: ScanProgress) => void;

/** Scans every planned server, `concurrency` at a time; reports in the plans' order. */
export async function scanServers(
  plans: readonly ServerPlan[],
  shared: SharedScanConfig,
  options: {
    readonly concurrency: number;
    readonly configs: readonly string[];
    readonly onProgress?: ServerProgress;
  },
): Promise<CombinedReport> {
  const started = performance.now();
  const startedAt = new Date().toISOString();
  const { onProgress } = options;
  const servers = await pool(
    plans.map(
      (plan) => () =>
        scanOne(plan, shared, onProgress === undefined ? undefined : (e) => onProgress(plan, e)),
    ),
    options.concurrency,
  );
  return {
    schemaVersion: 1,
    kind: 'combined',
    tool: { name: 'stateguard', version: packageVersion() },
    configs: [...options.configs],
    startedAt,
    ms: Math.round(performance.now() - started),
    servers,
  };
}
