/**
 * The scanner's vocabulary: targets, identities, exchanges with their evidence, and verdicts.
 *
 * This file is the contract between the engine (transports, runner, reporters, CLI) and the probes.
 */
import type { Reference } from './references.js';
import type { ConnectionPolicy } from './target/connection-policy.js';

/** The four verdicts. `errored` must never read as green. */
export const VERDICTS = ['confirmed', 'refuted', 'skipped', 'errored'] as const;
export type Verdict = (typeof VERDICTS)[number];

export const TRANSPORTS = ['http', 'stdio'] as const;
export type TransportKind = (typeof TRANSPORTS)[number];

/** What to scan. */
export type Target =
  | {
      readonly kind: 'http';
      readonly url: string;
      /** Connection reuse (`transport/http-connection.ts`); default `auto`. */
      readonly connection?: ConnectionPolicy;
      /** https: more CAs to trust (PEM), or no certificate check at all (`--insecure`). */
      readonly tls?: HttpTls;
    }
  | {
      readonly kind: 'stdio';
      readonly command: string;
      readonly args: readonly string[];
      /**
       * The child's whole environment. Absent: the scanner's own (a library caller's choice). The
       * command line never leaves it absent: `--stdio` and `--peer-stdio` get the minimal one plus
       * `--env`/`--env-file`, a server from a client configuration its own `env` over the minimal
       * one (cli/config/minimal-env.ts).
       */
      readonly env?: Readonly<Record<string, string>>;
      /** The child's working directory; absent: the scanner's. */
      readonly cwd?: string;
    };

/** TLS settings of an https target. */
export interface HttpTls {
  /** PEM certificates trusted besides the system's (`--ca <file>`). */
  readonly ca?: string;
  /** Skip certificate verification (`--insecure`); the CLI warns loudly. */
  readonly insecure?: boolean;
}

/** The two identities every differential probe uses. */
export type IdentityName = 'A' | 'B';

/**
 * What a probe saw. Built by `evidence.ts`, which redacts bearer tokens, identity secrets and long
 * sealed blobs at construction, and bounds depth and length, so reporters never see a secret.
 */
export type Evidence =
  | {
      readonly kind: 'http';
      readonly label: string;
      readonly identity?: IdentityName;
      readonly request: {
        method: string;
        url: string;
        headers: Record<string, string>;
        body?: unknown;
      };
      readonly response?: { status: number; headers: Record<string, string>; body?: unknown };
      /** Every JSON-RPC message read from the body (SSE events in order, or the one JSON body). */
      readonly received?: unknown[];
      readonly error?: string;
      readonly ms: number;
    }
  | {
      readonly kind: 'jsonrpc';
      readonly label: string;
      readonly identity?: IdentityName;
      readonly transport: TransportKind;
      readonly sent: unknown;
      /** Everything read for this request: notifications and server→client requests, then the answer. */
      readonly received: unknown[];
      readonly error?: string;
      readonly ms: number;
    }
  | {
      readonly kind: 'observation';
      readonly label: string;
      readonly expected: string;
      readonly actual: string;
    }
  | { readonly kind: 'stderr'; readonly lines: string[] }
  | { readonly kind: 'note'; readonly text: string };

/** Why an exchange produced no decision. None of these is ever read as a refusal. */
export const FAILURES = [
  'timeout',
  'deadline',
  'http-status',
  'empty',
  'not-json',
  'oversize',
  'transport',
  'closed',
  'spawn',
  /** The probe's `maxCalls` budget was spent: the engine refused to send. */
  'budget',
  /** The engine refused to send: a destructive tool without `--include-destructive`. */
  'blocked',
  /**
   * The server shed load (HTTP 429 or 503, an in-band rate-limit error) and the request did not get
   * through within the retries, the longest wait or the deadline: not a decision either way.
   */
  'shed',
] as const;
export type Failure = (typeof FAILURES)[number];

/**
 * The outcome of one JSON-RPC request.
 * - `result`: the server answered with a JSON-RPC result (a tool error with `isError` is still a result).
 * - `error`: the server answered with a JSON-RPC error: its decision, whatever HTTP status carried it.
 * - `failure`: no decision (timeout, 5xx, empty body, HTML page, dropped connection, …).
 */
export type Outcome =
  | {
      readonly kind: 'result';
      readonly result: Record<string, unknown>;
      /** Fields the server put beside `result` (a deviation), read as if inside it. */
      readonly lifted?: readonly string[];
    }
  | {
      readonly kind: 'error';
      readonly code: number;
      readonly message: string;
      readonly data?: unknown;
    }
  | { readonly kind: 'failure'; readonly failure: Failure; readonly detail: string };

/** One request, its outcome, and its evidence. */
export interface Exchange {
  readonly outcome: Outcome;
  readonly evidence: Evidence;
  /**
   * The exchanges this one answered, before it: a `-32021` whose capabilities the scanner then
   * declared and asked again (`capabilities.ts`). Recorded before `evidence`.
   */
  readonly earlier?: readonly Evidence[];
  /**
   * JSON-RPC requests sent on this one's behalf before it, each one more on the wire: a legacy
   * identity's `initialize` on its first request, the request asked again after a `-32021`. A
   * shed request sent again is not among them (the report counts those apart).
   */
  readonly alsoSent?: number;
}

/** A tool as `tools/list` described it. */
export interface ToolInfo {
  readonly name: string;
  /** The tool's display name (`title`), read by the risk rules like its name. */
  readonly title?: string;
  readonly description?: string;
  readonly inputSchema?: Record<string, unknown>;
  readonly annotations?: Record<string, unknown>;
  /**
   * `execution.taskSupport` as `tools/list` declares it (2025-11-25, kept by the Tasks extension):
   * whether the tool answers with a task. Any other value is dropped.
   */
  readonly taskSupport?: 'required' | 'optional' | 'forbidden';
}

/** What the engine learned of the target before any probe ran. */
export interface ProtocolInfo {
  /** `modern` speaks 2026-07-28; `legacy` needed `initialize`; `unknown` answered neither. */
  readonly era: 'modern' | 'legacy' | 'unknown';
  readonly protocolVersion?: string;
  readonly serverInfo?: { name?: string; version?: string };
  readonly discover: boolean;
  /**
   * The server's capabilities as a legacy `initialize` answered them (`tasks`, `tools`, …), or a
   * 2026-07-28 server's `server/discover` when the opening asked it and it answered. Bounded (an
   * oversized answer keeps none) and not in the report.
   */
  readonly capabilities?: Readonly<Record<string, unknown>>;
  readonly tools: readonly ToolInfo[];
  /** `prompts/list` (empty when the server has none or refused it). */
  readonly prompts: readonly PromptInfo[];
  /** URIs of `resources/list`. */
  readonly resources: readonly string[];
  /** URI templates of `resources/templates/list`. */
  readonly resourceTemplates: readonly string[];
  /**
   * How the server departs from 2026-07-28 without being a legacy server (no `server/discover`,
   * no `resultType`, `initialize` refused, …): observations, never a reason to stop.
   */
  readonly deviations: readonly string[];
}

/** A prompt as `prompts/list` described it. */
export interface PromptInfo {
  readonly name: string;
  readonly arguments: readonly { readonly name: string; readonly required?: boolean }[];
}

/** Options of one request. */
export interface RequestOptions {
  readonly identity: IdentityName;
  /** Names the exchange in evidence, e.g. `untouched retry`. */
  readonly label: string;
  /** Aborts the request (failure `deadline`). The runner sets it; probes need not. */
  readonly signal?: AbortSignal;
  /** Per-call timeout in ms; defaults to the session's (`--timeout`). */
  readonly timeoutMs?: number;
  /** HTTP: extra request headers (a foreign `Origin`); ignored over stdio. */
  readonly headers?: Readonly<Record<string, string>>;
  /** Send to the peer (`--peer`, `--peer-stdio`) instead of the target. */
  readonly via?: 'peer';
  /**
   * HTTP: send no credential at all: no `Authorization`, no `--identity-header`, no `--header`,
   * no session id. For requests whose only question is a header check (`transport/origin`).
   */
  readonly anonymous?: true;
  /**
   * HTTP, 2025-11-25: the `Mcp-Session-Id` to present instead of the identity's own (another
   * identity's, a forged one), or `null` for none at all. Given, the identity is not initialized on
   * first use: the probe decides which session the request claims.
   */
  readonly session?: string | null;
}

/** Options of reading a 2025-11-25 server's GET event stream (see {@link LegacySessions}). */
export interface ListenOptions {
  readonly identity: IdentityName;
  readonly label: string;
  /** The `Mcp-Session-Id` to present; `null` for none; absent: the identity's own. */
  readonly session?: string | null;
  /** How long the stream is read once `during` has finished (ms). */
  readonly windowMs: number;
  /** Most bytes read from the stream; more ends the reading (`oversize`). */
  readonly maxBytes: number;
  /** Runs once the stream is open (a 2xx event stream), while it is being read. */
  readonly during?: () => Promise<unknown>;
  /** Aborts the reading (the runner sets it). */
  readonly signal?: AbortSignal;
}

/** What a GET event stream carried, and how the reading ended. */
export interface StreamReading {
  /** The HTTP status, when the server answered at all. */
  readonly status?: number;
  /** Every event's data, parsed as JSON where it is JSON, in order. */
  readonly events: unknown[];
  /**
   * `window`: read for the whole window; `ended`: the server closed the stream; `oversize`: more
   * than `maxBytes`; `refused`: the answer was not a 2xx event stream; `failure`: no answer.
   */
  readonly end: 'window' | 'ended' | 'oversize' | 'refused' | 'failure';
  /** One line on how it ended, secret-free. */
  readonly detail: string;
  readonly evidence: Evidence;
}

/**
 * A 2025-11-25 Streamable HTTP server's sessions as the scan holds them: one per identity, opened by
 * `initialize`. Present on HTTP sessions only (sessions do not exist over stdio).
 */
export interface LegacySessions {
  /** The `Mcp-Session-Id` the identity's current session was handed, if the server gave one. */
  idOf(identity: IdentityName): string | undefined;
  /** A fresh `initialize` as `identity`; its session becomes the identity's current one. */
  open(identity: IdentityName, label: string, signal?: AbortSignal): Promise<Exchange>;
  /**
   * `DELETE` of the identity's current session (the spec's way for a client to end one); the
   * identity is initialized again on its next request. The outcome is a result on a 2xx.
   */
  terminate(identity: IdentityName, label: string, signal?: AbortSignal): Promise<Exchange>;
  /** Opens the GET event stream, bounded in time and bytes, and reads it. */
  listen(options: ListenOptions): Promise<StreamReading>;
}

/** A connection to the target that sends requests as either identity. */
export interface ScanSession {
  readonly transport: TransportKind;
  readonly protocol: ProtocolInfo;
  request(
    method: string,
    params: Record<string, unknown>,
    options: RequestOptions,
  ): Promise<Exchange>;
  /** A legacy HTTP server's sessions (absent over stdio). */
  readonly sessions?: LegacySessions;
  close(): Promise<void>;
}

/** The state of one control: a precondition that must hold before a verdict means anything. */
export interface ControlResult {
  readonly held: boolean;
  readonly expected: string;
  readonly observed: string;
}

/** A named fact the probe noticed that changes how its subject call is read. */
export interface Observation {
  readonly label: string;
  readonly detail: string;
}

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

/**
 * What a call may do to the target, the one class a scan's call plan records for every tool,
 * prompt and resource template (docs/scanner.md, "What a scan calls"): `read` changes nothing;
 * `create` makes a new object for the caller; `write` changes an existing object; `outside` reaches
 * beyond the server's own store (sends, publishes, pays, deploys, runs, fetches a URL); `destroy`
 * deletes, cancels or undoes; `unknown` is what the evidence does not settle. Without the user's
 * word only `read` and `create` are called.
 */
export const CALL_CLASSES = ['read', 'create', 'write', 'outside', 'destroy', 'unknown'] as const;
export type CallClass = (typeof CALL_CLASSES)[number];

/** The classes a scan calls without the user's word. */
export const SAFE_CLASSES: ReadonlySet<CallClass> = new Set<CallClass>(['read', 'create']);

/** Who let a plan entry be called. */
export type CallGrant = 'default' | '--allow-tool' | '--include-destructive';

/** One tool, prompt or resource template of the call plan: its class, why, and whether it is called. */
export interface PlanEntry {
  readonly kind: 'tool' | 'prompt' | 'resource-template';
  /** The tool's or prompt's name, or the resource template's URI template. */
  readonly name: string;
  readonly class: CallClass;
  /** The evidence read, one short phrase each, the deciding one first. */
  readonly evidence: string[];
  /** Present when the scan may call it: whose word lets it. */
  readonly calledBy?: CallGrant;
  /** Present when it is left alone: the flag that would call it (`--allow-tool <name>`). */
  readonly reach?: string;
}

/** What a scan may call, decided once before any call, and shown to the user. */
export interface CallPlan {
  readonly entries: PlanEntry[];
  /** The tools the user named with `--allow-tool`, as given. */
  readonly allowTools: string[];
  readonly includeDestructive: boolean;
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
