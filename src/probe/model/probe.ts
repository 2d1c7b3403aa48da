/**
 * How a probe is written, and the verdicts it decides. A probe is one self-contained module: an id
 * that never changes whatever the verdict, a rationale, references, and a `run` that drives the
 * target through a {@link ProbeContext} and returns a decision. The runner (`runner/run.ts`) owns
 * verdict semantics: it records every exchange as evidence, enforces the call budget and timeouts,
 * turns exceptions into `errored`, and downgrades a `confirmed` or `refuted` to `errored` when any
 * control did not hold.
 */
import type { Exchange, LegacySessions, ProtocolInfo, RequestOptions } from './wire.js';
import type { IdentityName, Target, TransportKind } from './target.js';
import type { Reference } from './references.js';
import type { SurfaceMap } from './surface-map.js';

/** The four verdicts. `errored` must never read as green. */
export const VERDICTS = ['confirmed', 'refuted', 'skipped', 'errored'] as const;
export type Verdict = (typeof VERDICTS)[number];

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

/**
 * What the user told the scan for the probes that need more than a target: how long a state must
 * live (`--expiry-wait`), and a second endpoint of the same deployment (`--peer`, `--peer-stdio`).
 */
export interface ProbeSettings {
  /** `--expiry-wait`: the longest lifetime the server should honour, in ms. */
  readonly expiryWaitMs?: number;
  /** `--peer` / `--peer-stdio`: another instance of the same deployment. */
  readonly peer?: Target;
  /**
   * Development only (no flag sets it): leave out a part of the experiments, to show in a test that
   * the part is load-bearing. `noise`: the untouched flow is not repeated, so nothing is known to
   * vary by itself; `reflection`: the control canary is not planted, so showing back reads as acting.
   */
  readonly ablate?: { readonly noise?: boolean; readonly reflection?: boolean };
}

/**
 * What a probe shares with other probes on the target beyond its own flows, so the runner knows what
 * it cannot run beside (`schedule.ts`). `sessions`: it opens or ends the identities' sessions, which
 * every probe runs in, so it runs alone; `task-ids`: it creates tasks or reads how the server numbers
 * them, which another probe's tasks would move; `waits`: it waits on purpose, and waits are ordered.
 */
export type Touch = 'sessions' | 'task-ids' | 'waits';

/** A probe's own conclusion, before the runner applies the controls. */
export interface ProbeDecision {
  readonly verdict: Verdict;
  readonly reason: string;
  /**
   * A confirmed finding's own severity when it is less than the probe's (the probe's `severity`
   * is its worst case); ignored on any other verdict.
   */
  readonly severity?: Probe['severity'];
}

/**
 * What a scan establishes once for every probe that needs it (a prepared flow, its untouched run):
 * the value of `key` is made by the first probe that asks, through a context whose requests count
 * as the scan's shared setup rather than that probe's, and every later probe reads the same value
 * and cites its exchanges. A value `keep` rejects (nothing decided: a request went unanswered) is
 * not kept: the next probe that asks makes its own. Never used for an object a probe consumes
 * while another probe may run ({@link SharedSetup.serial}).
 */
export interface SharedSetup {
  once<T>(
    key: string,
    make: (ctx: ProbeContext) => Promise<T>,
    keep: (value: T) => boolean,
  ): Promise<T>;
  /**
   * Set while the probes that read it run one after another (the held-back pass): a flow whose
   * request consumes its object may then be set up once too, each probe acting on it after the
   * last has finished, as one probe's own experiments follow each other on its own flow.
   */
  readonly serial?: boolean;
}

/** What a probe may do. Every request goes through here, so nothing escapes the evidence or budget. */
export interface ProbeContext {
  readonly transport: TransportKind;
  readonly protocol: ProtocolInfo;
  /**
   * The user's word in force in this pass (`--include-destructive`: every tool; `--allow-tool`:
   * the named ones); without it only the call plan's `read` and `create` tools are called.
   */
  readonly includeDestructive: boolean;
  readonly allowTools?: ReadonlySet<string>;
  /** What discovery found before the probes ran (empty while discovery itself runs). */
  readonly surface: SurfaceMap;
  /** The scan's settings for probes that need more than the target. */
  readonly settings: ProbeSettings;
  /**
   * The peer given with `--peer` / `--peer-stdio`, once opened (requests reach it with
   * `via: 'peer'`), or why it could not be; undefined when none was given or the probe wants none.
   */
  readonly peer?: { readonly problem?: string };
  /** Send one JSON-RPC request as an identity; recorded as evidence and counted against the budget. */
  request(
    method: string,
    params: Record<string, unknown>,
    options: RequestOptions,
  ): Promise<Exchange>;
  /**
   * A 2025-11-25 HTTP server's sessions: each identity's session id, a fresh session, a DELETE,
   * the GET event stream. Every exchange is counted against the budget and kept as evidence, as
   * with `request`. Absent over stdio and on a target without `initialize`.
   */
  readonly sessions?: LegacySessions;
  /** Record a control's state. A control that did not hold turns confirmed/refuted into errored. */
  control(id: string, result: ControlResult): void;
  /** Record an observation: a fact that changes how the subject call must be read. */
  observe(label: string, detail: string): void;
  /** Record a free-text note in the evidence. */
  note(text: string): void;
  /**
   * Record `text` and, after it, exchanges this probe did not send (discovery's, handed on to it):
   * its evidence shows every request its decision reads.
   */
  cite(text: string, exchanges: readonly Exchange[]): void;
  /**
   * The opening's first exchange of `method`, sent as A without params, if it sent one: a probe
   * whose control is that very request reads it (and cites it) rather than sending it again.
   */
  opened(method: string): Exchange | undefined;
  /** Which identity `value` is (its secret as the server may echo it), if either. */
  identityOf(value: string): IdentityName | undefined;
  /** The scan's shared setup; absent outside a scan's probe pass (the probe then makes its own). */
  readonly setup?: SharedSetup;
}

/** A probe module's default export. */
export interface Probe {
  /** `<area>/<slug>`, stable forever; the file name is the slug. */
  readonly id: string;
  /** The property that holds when the probe is `refuted`: "A changed requestState is refused". */
  readonly title: string;
  /** The flaw a `confirmed` result found, as its title: "A changed requestState is honoured". */
  readonly flaw: string;
  readonly severity: 'low' | 'medium' | 'high' | 'critical';
  /** Markdown: what the probe proves and what a weaker check would miss. */
  readonly rationale: string;
  readonly references: readonly Reference[];
  /** Most requests this probe may send. */
  readonly maxCalls: number;
  /**
   * Also run against a 2025-11-25 (legacy) server: the property does not depend on the era (a
   * handle, the HTTP transport's Origin check). Every other probe is `skipped` there, naming it.
   */
  readonly runsOnLegacy?: true;
  /** The probe talks to the peer too: the scan opens it (when given) before the probe runs. */
  readonly usesPeer?: true;
  /** What the probe shares with others beyond its own flows (see {@link Touch}); none when absent. */
  readonly touches?: readonly Touch[];
  /** Time this probe spends waiting on purpose (ms), added to its time cap and the scan deadline. */
  waitMs?(settings: ProbeSettings): number;
  run(ctx: ProbeContext): Promise<ProbeDecision>;
}

/** Identity function that type-checks a probe definition. */
export function defineProbe(probe: Probe): Probe {
  return probe;
}

/** Decision helpers, so probes read as sentences. */
export const confirmed = (reason: string, severity?: Probe['severity']): ProbeDecision =>
  severity === undefined
    ? { verdict: 'confirmed', reason }
    : { verdict: 'confirmed', reason, severity };
export const refuted = (reason: string): ProbeDecision => ({ verdict: 'refuted', reason });
export const skipped = (reason: string): ProbeDecision => ({ verdict: 'skipped', reason });
export const errored = (reason: string): ProbeDecision => ({ verdict: 'errored', reason });
