/**
 * The canonical report: every probe's result, the scan's own record (requests, load shed, the call
 * plan, what it created), the report of several servers, and what a baseline did to a run.
 */
import type { Reference } from './references.js';
import type { Evidence } from './evidence.js';
import type { ControlResult, Observation, Verdict } from './probe.js';
import type { TransportKind } from './target.js';
import type { CallPlan } from './tools.js';
import type { ProtocolInfo } from './wire.js';

/** The one record every probe produces, whatever its verdict. */
export interface ProbeResult {
  readonly id: string;
  /** The property the probe asks about (what holds when it is refuted). */
  readonly title: string;
  /** The flaw a confirmed result found: every report titles a confirmed result by it. */
  readonly flaw: string;
  readonly severity: 'low' | 'medium' | 'high' | 'critical';
  readonly verdict: Verdict;
  /**
   * Set on a `confirmed` result that a `--baseline` entry accepts: it stays `confirmed`, but no
   * longer fails the run. Absent otherwise (never `false`), so a report without a baseline is
   * unchanged.
   */
  readonly baselined?: true;
  readonly reason: string;
  /**
   * Set on a `skipped` result whose surface may exist but was not tried: left alone by the call
   * plan (a flow or consumer behind a tool that writes, spends or deletes), or behind tools that
   * each answered `-32603 Internal error`. What would let the probe decide: a flag
   * (`"--allow-tool refund_order"`) or the server answering those tools. Such a result is *undecided*: it fails the run
   * (exit 5) unless `--allow-undecided`.
   */
  readonly decideWith?: string[];
  readonly controls: Record<string, ControlResult>;
  readonly observations: Observation[];
  readonly evidence: Evidence[];
  readonly ms: number;
  /** Requests the probe sent (every run of it, when it ran again); absent on a result never run. */
  readonly requests?: number;
  /**
   * A judgement of a capture (`stateguard check`, `stateguard watch`): the capture lines that show
   * it, the first the one that shows it best. SARIF points at them in {@link RunReport.capture}.
   */
  readonly lines?: readonly number[];
}

/** The canonical report; JSON output is exactly this, other formats are projections. */
export interface RunReport {
  readonly schemaVersion: 1;
  readonly tool: { name: 'stateguard'; version: string };
  readonly target: { kind: TransportKind; display: string };
  readonly protocol: Omit<
    ProtocolInfo,
    'tools' | 'prompts' | 'resources' | 'resourceTemplates' | 'deviations' | 'capabilities'
  > & {
    toolNames: string[];
    /** Present when the server lists any. */
    promptNames?: string[];
    resources?: string[];
    resourceTemplates?: string[];
    /** Present when the server departs from 2026-07-28 in ways the scan tolerated. */
    deviations?: string[];
  };
  /** What discovery found and tried before the probes ran (absent when no probe ran). */
  readonly surface?: {
    readonly handles: string[];
    readonly flows: string[];
    readonly tried: string[];
    /** Callable tools the survey did not finish with, and why (its time cap, its budget). */
    readonly notReached?: { readonly tool: string; readonly why: string }[];
    readonly evidence: Evidence[];
  };
  readonly startedAt: string;
  readonly ms: number;
  /** Set when the target answered nothing usable (unreachable, missing command, mute); names what. */
  readonly problem?: string;
  /** Present only when the scan ran with `--baseline`. */
  readonly baseline?: BaselineSummary;
  /**
   * Requests the scan sent: opening the target (and the peer), discovery, the probes' shared setup
   * (flows prepared and run untouched once for every probe that needs them), and the probes (each
   * probe's own, on top of the shared setup, are in its result). One JSON-RPC request sent is one,
   * whatever it drew; a shed request sent again is counted in `shed.retried`, not here. Absent on
   * a report made before they were counted; `shared` absent on one made before it was shared.
   */
  readonly requests?: {
    readonly total: number;
    readonly opening: number;
    readonly survey: number;
    readonly shared?: number;
    readonly probes: number;
  };
  /**
   * Load the server shed (HTTP 429, 503, in-band rate-limit errors), all sessions of the scan
   * together: present only when it shed any. `waitedMs` sums the waits of every request.
   */
  readonly shed?: ShedSummary;
  /**
   * The probes that ended `errored` while others ran beside them and were run again alone (their
   * requests count both runs): present only when any was. Rare by design: probes side by side
   * never act on each other's objects.
   */
  readonly rerunAlone?: string[];
  /** How many probes decided nothing (ended `skipped` or `errored`); all of them: nothing decided. */
  readonly undecided: number;
  readonly probes: ProbeResult[];
  /**
   * What the results are judged by, once per probe (or capture judgement) with a result here, so
   * a reporter renders from the report alone. Absent on a report made before reports carried them
   * (a reporter then has the results' own title and severity).
   */
  readonly rules?: readonly ReportRule[];
  /** The call plan: every tool, prompt and resource template, its class and whether it was called. */
  readonly plan?: CallPlan;
  /**
   * Tools the scan left alone, and why: destructive, or running commands or code, queries, URL
   * fetches or file access, without `--include-destructive`. Absent when there is none.
   */
  readonly uncalled?: {
    readonly tool: string;
    readonly why: string;
    /** The flag that would call it (`--include-destructive`). */
    readonly flag?: string;
  }[];
  /**
   * What this scan created on the target: objects a tool that does not only read minted for the
   * scan's own calls (a note, a draft, an `sg-survey-…` record), each with the tool called and the
   * id or handle it handed out, redacted and cut like evidence. `total` counts them all; `items`
   * names the first {@link MAX_CREATED_SHOWN}. Absent when the scan created nothing it could see.
   */
  readonly created?: {
    readonly total: number;
    readonly items: readonly { readonly tool: string; readonly value: string }[];
  };
  /** Set when the target came from a client configuration file (`--config`): where it was declared. */
  readonly server?: ServerSource;
  /** Set on the report of a capture's judgements: the capture file, as named. */
  readonly capture?: string;
}

/** A probe's (or a capture judgement's) rule as a report carries it. */
export interface ReportRule {
  readonly id: string;
  /** The property asked about (what holds when it is refuted). */
  readonly title: string;
  /** The flaw a confirmed result found. */
  readonly flaw: string;
  /** The worst case; one finding may weigh less (its result says so). */
  readonly severity: ProbeResult['severity'];
  /** Why the property matters: the first paragraph is its summary. */
  readonly rationale: string;
  readonly references: readonly Reference[];
}

/** How many created objects a report names; the rest are counted. */
export const MAX_CREATED_SHOWN = 50;
/** How much of a created value a report shows (code points). */
export const MAX_CREATED_VALUE = 120;

/** What load shedding cost a scan (`target/pace.ts`). */
export interface ShedSummary {
  /** Answers that were load shedding. */
  readonly total: number;
  readonly byKind: { readonly '429': number; readonly '503': number; readonly 'in-band': number };
  /** Shed requests sent again. */
  readonly retried: number;
  /** Requests that never got through (their probes say why). */
  readonly gaveUp: number;
  /** Time shed requests spent waiting, summed over requests (ms). */
  readonly waitedMs: number;
  /** The fewest requests the pace let be in flight at once, when it narrowed. */
  readonly narrowest?: number;
}

/** Where a scanned server was declared: its entry in an MCP client configuration file. */
export interface ServerSource {
  /** The entry's name (its key in the file). */
  readonly name: string;
  /** The configuration file, as the user named it or as it was found (relative paths stay relative). */
  readonly file: string;
  /** 1-based line of the entry's key in that file. */
  readonly line: number;
  /** The client format the file was read as (e.g. `claude-desktop`, `vscode`). */
  readonly format: string;
}

/**
 * The report of a scan of several servers (`--config`): one {@link RunReport} per server, each with
 * its `server` set, in the order the files declared them. A server that could not be started (an
 * unresolved placeholder, an SSE-only legacy entry) has a report with `problem` set and no probes.
 */
export interface CombinedReport {
  readonly schemaVersion: 1;
  readonly kind: 'combined';
  readonly tool: { name: 'stateguard'; version: string };
  /** The configuration files read, as named or found. */
  readonly configs: string[];
  readonly startedAt: string;
  readonly ms: number;
  readonly servers: RunReport[];
  /** Set when the servers came from an MCP registry (`--registry`) or a `--server-json`. */
  readonly registry?: RegistrySummary;
}

/** Where a registry scan's entries came from, and how many were scanned, not scanned, failed. */
export interface RegistrySummary {
  readonly kind: 'registry' | 'server-json';
  /** The registry's list URL, or the server.json file or URL as given. */
  readonly url: string;
  /** Pages read (`--registry`). */
  readonly pages?: number;
  /** Entries read. */
  readonly entries: number;
  /** Why the walk stopped before the registry's last page (a bound, a failed page). */
  readonly cut?: string;
  readonly counts: ServerCounts;
}

/** How the servers of a combined report ended, in three numbers. */
export interface ServerCounts {
  /** Started and probed (whatever the verdicts). */
  readonly scanned: number;
  /** Left alone by design, each with its reason ("not scanned: …"). */
  readonly notScanned: number;
  /** Meant to be scanned, but not started or not reached. */
  readonly failed: number;
}

/**
 * What a `--baseline` file did to a run: the confirmed probes it accepted, and its stale entries
 * (whose probe is now `refuted` on this target). A stale entry fails the run, so that a baseline
 * cannot keep accepting a flaw long after it was fixed and silently hide its return.
 */
export interface BaselineSummary {
  /** The file as given on the command line. */
  readonly file: string;
  /** Ids of the `confirmed` probes an entry accepted. */
  readonly baselined: string[];
  /** Entries (as written: `<probe-id>` or `<probe-id>@<target>`) whose probe is now refuted. */
  readonly stale: string[];
  /**
   * Entries limited to a target that matched no target of the run (a server moved, a name
   * misspelt): they accept nothing. With `--strict-baseline` they fail the run.
   */
  readonly unmatched: string[];
  /** `--strict-baseline`: an unmatched entry fails the run like a stale one. */
  readonly strict?: true;
}
