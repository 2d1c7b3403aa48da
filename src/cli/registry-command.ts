/**
 * `stateguard scan --registry <url>` and `--server-json <file|url>`: read the entries (bounded,
 * see registry/fetch.ts), plan each one (registry/plan.ts: what runs, or why nothing does), and
 * scan them with the `--config` machinery: one combined report, the same exit codes. The report
 * carries where the entries came from and the counts: scanned, not scanned (each with its
 * reason), failed.
 */
import { ProbeUsageError } from '../errors.js';
import type { RegistrySummary } from '../probe/model/report.js';
import { visibleLine } from '../report/visible.js';
import { runConfigScan } from './config-command.js';
import type { ConfigSelection } from './config/select.js';
import {
  readRegistry,
  readServerJson,
  type RegistryLimits,
  type RegistryQuery,
} from './registry/fetch.js';
import { planEntry, type RegistryPlanOptions } from './registry/plan.js';
import type { CommonScanArgs } from './scan-args.js';

/** A validated `--registry` or `--server-json` request. */
export interface RegistryRequest {
  readonly kind: 'registry' | 'server-json';
  /** The registry's list URL, or the server.json file or URL as given. */
  readonly where: string;
  readonly query: RegistryQuery;
  readonly limits: RegistryLimits;
  /** `--server`: only these server names (with or without `@<version>`). */
  readonly names: readonly string[];
  readonly concurrency: number;
  readonly plan: RegistryPlanOptions;
}

/** Reads, plans and scans; resolves with the exit code. */
export async function runRegistryScan(
  args: CommonScanArgs,
  request: RegistryRequest,
  err: (line: string) => void,
): Promise<number> {
  let items: unknown[];
  let pages = 0;
  let cut: string | undefined;
  try {
    if (request.kind === 'server-json') {
      items = [await readServerJson(request.where, request.limits)];
    } else {
      const read = await readRegistry(new URL(request.where), request.query, request.limits);
      items = read.entries;
      pages = read.pages;
      cut = read.cut;
    }
  } catch (error) {
    if (!(error instanceof ProbeUsageError)) throw error;
    err(`stateguard scan: ${error.message}`);
    return 2;
  }
  const format = request.kind === 'registry' ? 'registry' : 'server.json';
  let plans = items.map((item, i) =>
    planEntry(item, { file: request.where, index: i + 1, format }, request.plan),
  );
  if (request.names.length > 0) {
    const wanted = (name: string): boolean =>
      request.names.some((n) => n === name || name.startsWith(`${n}@`));
    plans = plans.filter((p) => wanted(p.source.name));
    if (plans.length === 0) {
      err(`stateguard scan: no entry of ${visibleLine(request.where)} is named by --server`);
      return 2;
    }
  }
  if (cut !== undefined) err(`stateguard scan: warning: ${request.kind} ${visibleLine(cut)}`);
  if (plans.length === 0) {
    err(`stateguard scan: --registry ${visibleLine(request.where)} lists no server`);
  }
  const selection: ConfigSelection = {
    files: [{ file: request.where, format, servers: [] }],
    plans,
    disabled: [],
    concurrency: request.concurrency,
  };
  const source: Omit<RegistrySummary, 'counts'> = {
    kind: request.kind,
    url: request.where,
    ...(request.kind === 'registry' ? { pages } : {}),
    entries: items.length,
    ...(cut === undefined ? {} : { cut }),
  };
  return runConfigScan(args, selection, err, source);
}
