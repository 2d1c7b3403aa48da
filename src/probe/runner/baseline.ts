/**
 * Baselines (`stateguard scan --baseline <file>`): findings a team has accepted for now, so the
 * scanner can gate CI on a server with known flaws and still fail on a new one.
 *
 * A baseline file holds one entry a line: `<probe-id>` accepts that probe's `confirmed` result on
 * any target; `<probe-id>@<target>` only on that target (`stdio:node server.js`,
 * `http://127.0.0.1:3000/mcp`, or the name of a `--config` server), compared after normalising
 * ({@link targetKey}): the host's case, a default port, a trailing slash, runs of blanks in a
 * command, and any port on a loopback address (`localhost`, `127.0.0.1` and `[::1]` are one host,
 * so a server on a new port still matches; not in a `--config` run, where several local servers
 * share loopback and an entry must match one of them). A line whose first non-blank
 * character is `#` is a comment; blank lines are ignored. Comments are whole lines only, because a
 * target may itself hold a `#` (a URL fragment, a quoted argument).
 *
 * An accepted result stays `confirmed` in every report and is only marked `baselined`: hiding it
 * would let an accepted flaw disappear from view. An entry whose probe is now `refuted` on this
 * target is stale, and a stale entry fails the run (conformance's rule): otherwise the entry would
 * outlive the fix and silently accept the flaw when it comes back. An entry whose probe was
 * skipped, errored or not run says nothing either way, so it is neither baselined nor stale.
 */
import { canonicalLine } from './command-words.js';
import { ProbeUsageError } from '../../errors.js';
import { isProbeId, PROBE_IDS } from './probe-ids.js';
import type { BaselineSummary, ProbeResult, RunReport } from '../model/report.js';

/** One accepted finding. */
export interface BaselineEntry {
  readonly probeId: string;
  /** The exact `target.display` the entry is limited to; absent for any target. */
  readonly target?: string;
  /** The entry as written (without surrounding blanks): `<probe-id>` or `<probe-id>@<target>`. */
  readonly text: string;
  /** Its line in the file, from 1. */
  readonly line: number;
}

/** A parsed baseline file. */
export interface Baseline {
  /** The file as given on the command line. */
  readonly file: string;
  readonly entries: readonly BaselineEntry[];
  /** `--strict-baseline`: an entry that matched no target fails the run. */
  readonly strict?: boolean;
}

/** Why a stale entry fails the run, for every place that names one. */
export const STALE_REASON = 'its probe is now refuted on this target';

/** Why an unmatched entry accepts nothing, for every place that names one. */
export const UNMATCHED_REASON = 'it names a target this run did not scan';

const PROBE_ID = /^[a-z0-9]+(?:-[a-z0-9]+)*\/[a-z0-9]+(?:-[a-z0-9]+)*$/;
// What a report's target.display starts with (see displayTarget in scan.ts), or a server's name
// in a client configuration (`github`, `my.server_2`).
const TARGET = /^(?:(?:stdio:|https?:\/\/)\S|[A-Za-z0-9][\w.-]*$)/;
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

/**
 * A target as entries and reports are compared: `http://LOCALHOST:3000/mcp/` and
 * `http://127.0.0.1:4100/mcp` are both `http://loopback/mcp`; `https://Mcp.Example.com:443/mcp`
 * is `https://mcp.example.com/mcp`; `stdio:node  server.js` is `stdio:node server.js`, and
 * `stdio:npx -y \@scope/pkg` is `stdio:npx -y @scope/pkg` (probe/command-words.ts). A server's
 * name is itself.
 */
export function targetKey(target: string, exact = false): string {
  // Both sides in one spelling: an entry written by hand (`@scope/pkg`) matches a report's older,
  // escaped one (`\@scope/pkg`), and the other way round.
  if (target.startsWith('stdio:')) return `stdio:${canonicalLine(target.slice(6))}`;
  if (!/^https?:\/\//i.test(target)) return target;
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    return target;
  }
  const loopback = LOOPBACK.has(url.hostname) || /^127\./.test(url.hostname);
  const host = loopback && !exact ? 'loopback' : url.host;
  const path = url.pathname.length > 1 ? url.pathname.replace(/\/+$/, '') : '';
  return `${url.protocol}//${host}${path}${url.search}`;
}

/**
 * True when entry `e` applies to `report`: no target, or the report's target or server name. In a
 * `--config` run (the report names its server) a target matches exactly, loopback host and port
 * included: there several local servers listen on loopback, and an entry written for one must not
 * accept another's finding.
 */
function applies(e: BaselineEntry, report: RunReport): boolean {
  if (e.target === undefined) return true;
  if (report.server?.name === e.target) return true;
  const exact = report.server !== undefined;
  return targetKey(e.target, exact) === targetKey(report.target.display, exact);
}

/** The probe id of an entry as written: `state/tamper@stdio:x` → `state/tamper`. */
export function entryProbeId(entry: string): string {
  const at = entry.indexOf('@');
  return at === -1 ? entry : entry.slice(0, at);
}

/** A bad entry quoted in a one-line error: control characters replaced, long ones cut. */
function shown(entry: string): string {
  const s = entry.replace(/[^\x20-\x7e\u00a0-\uffff]/g, '?');
  return s.length > 60 ? `'${s.slice(0, 57)}…'` : `'${s}'`;
}

/**
 * Parses the text of a baseline file. Throws {@link ProbeUsageError} naming the first bad line:
 * a malformed entry, or a probe id the registry does not know (a typo would otherwise accept
 * nothing, silently).
 */
export function parseBaseline(text: string, file: string): Baseline {
  const entries: BaselineEntry[] = [];
  const seen = new Set<string>();
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  for (const [index, raw] of lines.entries()) {
    const line = index + 1;
    const entry = raw.trim();
    if (entry === '' || entry.startsWith('#')) continue;
    const bad = (what: string): ProbeUsageError =>
      new ProbeUsageError(`--baseline '${file}' line ${line}: ${what}`);
    const probeId = entryProbeId(entry);
    const target = probeId === entry ? undefined : entry.slice(probeId.length + 1);
    if (!PROBE_ID.test(probeId) || (target !== undefined && !TARGET.test(target))) {
      throw bad(
        `expected <probe-id> or <probe-id>@<target> (a target as the report shows it, ` +
          `stdio:… or http(s)://…, or a --config server's name), got ${shown(entry)}`,
      );
    }
    if (!isProbeId(probeId)) {
      throw bad(`unknown probe '${probeId}' (${PROBE_IDS.join(', ')})`);
    }
    if (seen.has(entry)) continue;
    seen.add(entry);
    entries.push({ probeId, ...(target !== undefined ? { target } : {}), text: entry, line });
  }
  return { file, entries };
}

/** `r` with `baselined: true` right after its verdict, where a reader of the JSON looks. */
function markBaselined(r: ProbeResult): ProbeResult {
  const entries = Object.entries(r).flatMap(([k, v]): [string, unknown][] =>
    k === 'verdict'
      ? [
          [k, v],
          ['baselined', true],
        ]
      : [[k, v]],
  );
  return Object.fromEntries(entries) as unknown as ProbeResult;
}

/**
 * The report with the baseline applied: every `confirmed` result an entry accepts is marked
 * `baselined`, and `baseline` (before `probes`) names the file, the accepted probes and the stale
 * entries. Entries limited to another target are ignored.
 */
export function applyBaseline(report: RunReport, baseline: Baseline): RunReport {
  const here = baseline.entries.filter((e) => applies(e, report));
  const baselined = new Set<string>();
  const stale = new Set<string>();
  const probes = report.probes.map((r) => {
    const matching = here.filter((e) => e.probeId === r.id);
    if (matching.length === 0) return r;
    if (r.verdict === 'refuted') for (const e of matching) stale.add(e.text);
    if (r.verdict !== 'confirmed') return r;
    baselined.add(r.id);
    return markBaselined(r);
  });
  const unmatched = baseline.entries
    .filter((e) => e.target !== undefined && !here.includes(e))
    .map((e) => e.text);
  const summary = {
    file: baseline.file,
    baselined: [...baselined],
    stale: [...stale],
    unmatched,
    ...(baseline.strict === true ? { strict: true as const } : {}),
  };
  const entries = Object.entries(report).flatMap(([k, v]): [string, unknown][] =>
    k === 'baseline'
      ? []
      : k === 'probes'
        ? [
            ['baseline', summary],
            [k, probes],
          ]
        : [[k, v]],
  );
  return Object.fromEntries(entries) as unknown as RunReport;
}

/** True when the baseline itself fails the run: a stale entry, or under `strict` an unmatched one. */
export function baselineFails(summary: BaselineSummary | undefined): boolean {
  if (summary === undefined) return false;
  return summary.stale.length > 0 || (summary.strict === true && summary.unmatched.length > 0);
}

/**
 * True when the run fails: a `confirmed` result no entry accepts, a stale entry, or with
 * `--strict-baseline` an entry that matched no target.
 */
export function failsRun(report: RunReport): boolean {
  return (
    report.probes.some((p) => p.verdict === 'confirmed' && p.baselined !== true) ||
    baselineFails(report.baseline)
  );
}

/**
 * The baseline applied to every server of a `--config` scan. An entry limited to a target applies
 * to the server whose report shows that target. A bare entry accepts its probe on any server, so it
 * is stale only when no server still confirms that probe: that one server refutes it while another
 * confirms it means the entry is still in use.
 */
export function applyBaselineToServers(
  reports: readonly RunReport[],
  baseline: Baseline,
): RunReport[] {
  const applied = reports.map((r) => applyBaseline(r, baseline));
  const inUse = new Set(applied.flatMap((r) => r.baseline?.baselined ?? []));
  // An entry limited to one server is unmatched only when it matched no server at all; it is
  // named once, on the first report, so that counting over servers counts it once.
  const matchedSomewhere = new Set(
    baseline.entries
      .filter((e) => e.target !== undefined && reports.some((r) => applies(e, r)))
      .map((e) => e.text),
  );
  return applied.map((r, i) => {
    const summary = r.baseline;
    if (summary === undefined) return r;
    const stale = summary.stale.filter((e) => e.includes('@') || !inUse.has(entryProbeId(e)));
    const unmatched = i === 0 ? summary.unmatched.filter((e) => !matchedSomewhere.has(e)) : [];
    return { ...r, baseline: { ...summary, stale, unmatched } };
  });
}
