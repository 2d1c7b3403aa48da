/**
 * The server × probe verdict matrix of a combined report (`--config`), shared by the text and
 * Markdown reporters, and the one-line summary of a combined report.
 */
import { failsRun } from '../probe/runner/baseline.js';
import { nothingDecided, undecidedSurface } from '../probe/runner/decided.js';
import type { CombinedReport, RunReport, ServerCounts } from '../probe/model/report.js';
import type { Verdict } from '../probe/model/probe.js';
import { VERDICTS } from '../probe/model/probe.js';

/** How a report's `problem` starts when its entry was left alone by design (see cli/config/plan.ts). */
const NOT_SCANNED = 'not scanned: ';

/** One cell: a verdict, `baselined` for an accepted confirmed one, or `-` where the probe did not run. */
export type Cell = Verdict | 'baselined' | '-';

/** How a server ended, in one word or two. */
export type ServerStatus = 'confirmed' | 'errored' | 'not started' | 'not scanned' | 'clean';

/** The probe ids of every server, in the order they first appear. */
export function matrixProbes(report: CombinedReport): string[] {
  return [...new Set(report.servers.flatMap((s) => s.probes.map((p) => p.id)))];
}

/** The cell of `server` for probe `id`. */
export function cell(server: RunReport, id: string): Cell {
  const r = server.probes.find((p) => p.id === id);
  if (r === undefined) return '-';
  return r.verdict === 'confirmed' && r.baselined === true ? 'baselined' : r.verdict;
}

/** How `server` ended, as the exit code reads it. */
export function serverStatus(server: RunReport): ServerStatus {
  if (failsRun(server)) return 'confirmed';
  if (server.problem?.startsWith(NOT_SCANNED) === true) return 'not scanned';
  if (server.problem !== undefined && server.probes.length === 0) return 'not started';
  if (server.problem !== undefined || server.probes.some((p) => p.verdict === 'errored'))
    return 'errored';
  return 'clean';
}

/**
 * A server's name as a row shows it, cut so that one name cannot widen the table; still to be
 * escaped by the reporter for its format.
 */
export function serverName(server: RunReport, max = 40): string {
  const name = server.server?.name ?? server.target.display;
  return name.length > max ? `${name.slice(0, max - 1)}…` : name;
}

/**
 * `12 confirmed · 30 refuted · 4 skipped · 1 errored across 5 servers (1 not started, 1 not
 * scanned, 1 with nothing decided)`.
 */
export function combinedSummaryLine(report: CombinedReport): string {
  const all = report.servers.flatMap((s) => s.probes);
  const counts = VERDICTS.map((v) => `${all.filter((p) => p.verdict === v).length} ${v}`);
  const accepted = all.filter((p) => p.baselined === true).length;
  if (accepted > 0) counts[0] = `${counts[0]} (${accepted} baselined)`;
  const stale = report.servers.reduce((n, s) => n + (s.baseline?.stale.length ?? 0), 0);
  if (stale > 0) counts.push(`${stale} stale baseline ${stale === 1 ? 'entry' : 'entries'}`);
  const unmatched = report.servers.reduce((n, s) => n + (s.baseline?.unmatched.length ?? 0), 0);
  if (unmatched > 0)
    counts.push(`${unmatched} unmatched baseline ${unmatched === 1 ? 'entry' : 'entries'}`);
  const statuses = report.servers.map(serverStatus);
  const of = (s: ServerStatus): number => statuses.filter((x) => x === s).length;
  const aside = (['not started', 'not scanned'] as const)
    .filter((s) => of(s) > 0)
    .map((s) => `${of(s)} ${s}`);
  // Scanned, yet no probe confirmed or refuted anything there: the server is not shown clean.
  const unproven = report.servers.filter(
    (r, i) => (statuses[i] === 'clean' || statuses[i] === 'errored') && nothingDecided(r),
  ).length;
  if (unproven > 0) aside.push(`${unproven} with nothing decided`);
  // Said first, as in one server's summary: what a gate fails on (exit 5) and why.
  const undecided = report.servers.reduce((k, s) => k + undecidedSurface(s).length, 0);
  if (undecided > 0)
    counts.unshift(`${undecided} undecided (the report names what would decide each)`);
  const n = report.servers.length;
  return `${counts.join(' · ')} across ${n} server${n === 1 ? '' : 's'}${aside.length > 0 ? ` (${aside.join(', ')})` : ''}`;
}

/**
 * Scanned, not scanned (by design) and failed servers: a server failed when it could not be
 * started or reached (its report has a target problem), whatever its probes then said.
 */
export function serverCounts(report: Pick<CombinedReport, 'servers'>): ServerCounts {
  const notScanned = report.servers.filter((s) => s.problem?.startsWith(NOT_SCANNED) === true);
  const failed = report.servers.filter(
    (s) => s.problem !== undefined && !notScanned.includes(s),
  ).length;
  return {
    scanned: report.servers.length - notScanned.length - failed,
    notScanned: notScanned.length,
    failed,
  };
}

/** Each distinct reason servers were not scanned for, with how many: `missing TOKEN (×3)`. */
export function notScannedReasons(report: Pick<CombinedReport, 'servers'>): string[] {
  const counts = new Map<string, number>();
  for (const s of report.servers)
    if (s.problem?.startsWith(NOT_SCANNED) === true) {
      const why = s.problem.slice(NOT_SCANNED.length);
      counts.set(why, (counts.get(why) ?? 0) + 1);
    }
  return [...counts].map(([why, n]) => (n === 1 ? why : `${why} (×${n})`));
}

/**
 * `registry http://…/v0.1/servers: 34 entries on 4 pages · 9 scanned · 22 not scanned · 3 failed`
 * (and why the walk stopped early, when it did); undefined without a registry.
 */
export function registryLine(report: CombinedReport): string | undefined {
  const r = report.registry;
  if (r === undefined) return undefined;
  const { scanned, notScanned, failed } = r.counts;
  const read =
    r.pages === undefined
      ? `${r.entries} entr${r.entries === 1 ? 'y' : 'ies'}`
      : `${r.entries} entr${r.entries === 1 ? 'y' : 'ies'} on ${r.pages} page${r.pages === 1 ? '' : 's'}`;
  return (
    `${r.kind} ${r.url}: ${read} · ${scanned} scanned · ${notScanned} not scanned · ${failed} failed` +
    (r.cut === undefined ? '' : ` (${r.cut})`)
  );
}
