/**
 * One scan: open a session on the target, run the selected probes within the deadline, close the
 * session, and return the canonical {@link RunReport}. A target that cannot be reached still yields a
 * full report, every probe `errored` with what did not answer.
 */
import { SCAN_DEFAULTS } from './defaults.js';
import { displayTarget } from './display-target.js';
import { randomBytes } from 'node:crypto';
import type { Probe, ProbeSettings } from '../model/probe.js';
import { createRedactor } from '../evidence/evidence.js';
import type { ExtraSecret, Redactor } from '../evidence/evidence.js';
import { DEFAULT_PRINCIPAL_META_KEY, openSession } from '../target/session.js';
import type { EngineSession, SessionOptions } from '../target/session.js';
import { AbortCause } from '../target/jsonrpc.js';
import { createServerPaces, shedSummary } from '../target/pace.js';
import { runPhases, type ScanClock, type ScanRun } from './scan-phases.js';
import { buildReport, exchangesIn, redactPlan } from './scan-report.js';
import { buildCallPlan, unlistedAllowed } from '../plan/call-plan.js';
import type { CallPlan } from '../model/tools.js';
import type { IdentityName, Target } from '../model/target.js';
import type { ProbeResult, RunReport } from '../model/report.js';
import type { ProtocolInfo } from '../model/wire.js';
import { packageVersion } from './version.js';

export { packageVersion };

export { SCAN_DEFAULTS, displayTarget };

/** What to scan and how. */
export interface ScanConfig {
  readonly target: Target;
  readonly probes: readonly Probe[];
  /** Secrets of identities A and B; each missing one is a fresh random value. */
  readonly identities?: Partial<Record<IdentityName, string>>;
  readonly principalMetaKey?: string;
  /** HTTP: the identity goes in this header (`{identity}` in `value` is replaced), not a bearer. */
  readonly identityHeader?: { readonly name: string; readonly value: string };
  /** stdio: the identity goes in this environment variable; A and B run as two processes. */
  readonly identityEnv?: string;
  /** HTTP: headers sent on every request; their values are redacted like identities. */
  readonly headers?: readonly { readonly name: string; readonly value: string }[];
  /** More values to redact wherever they show up (a configured server's env values), each with its stand-in. */
  readonly secrets?: readonly ExtraSecret[];
  readonly timeoutMs?: number;
  /** How long a stdio child may take to give its first answer (ms). */
  readonly startupTimeoutMs?: number;
  readonly deadlineMs?: number;
  readonly maxAnswerBytes?: number;
  readonly includeDestructive?: boolean;
  /** `--allow-tool`: tools the user lets the scan call, by name, in its last pass. */
  readonly allowTools?: readonly string[];
  /** Let a server-minted value reach a risky parameter (`--allow-minted-in-risky`). */
  readonly allowMintedInRisky?: boolean;
  /**
   * `--expiry-wait`, `--peer`, `--peer-stdio`. A probe that waits on purpose (`state/expiry`)
   * extends the deadline by its wait.
   */
  readonly settings?: ProbeSettings;
  /**
   * `--serial`: every probe one after another in registry order, as before the runner ran
   * independent probes side by side (`schedule.ts`). For debugging; the verdicts are the same.
   */
  readonly serial?: boolean;
  readonly onProgress?: (event: ScanProgress) => void;
}

/** Progress of a scan, for a CLI's stderr. */
export type ScanProgress =
  | { readonly phase: 'open'; readonly target: string }
  | { readonly phase: 'opened'; readonly era: string; readonly tools: number }
  | { readonly phase: 'probe'; readonly id: string }
  | { readonly phase: 'result'; readonly result: ProbeResult };

/** A fresh random identity secret: recognisable in echoes, unguessable. */
export function randomIdentity(name: IdentityName): string {
  return `stateguard-${name.toLowerCase()}-${randomBytes(12).toString('base64url')}`;
}

/** The largest delay a Node.js timer honours; a longer one fires at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** A limit in ms that a timer can hold; anything else is misuse (`RangeError`, naming the field). */
function checkedMs(name: string, ms: number): number {
  if (!Number.isFinite(ms) || ms <= 0 || ms > MAX_TIMER_MS)
    throw new RangeError(`${name} must be a number of ms in 1..${MAX_TIMER_MS}`);
  return ms;
}

/** The scan deadline: one timer for the whole scan, grown by the probes' deliberate waits. */
function startClock(config: ScanConfig, waited: number): ScanClock {
  const started = performance.now();
  const deadlineMs = checkedMs(
    'deadlineMs',
    (config.deadlineMs ?? SCAN_DEFAULTS.deadlineMs) + waited,
  );
  // Every message that a limit fired names the limit and the flag that sets it: a timeout must not
  // read as the server's fault when the limit was the user's.
  const name = `the scan deadline (${deadlineMs} ms, set by --deadline)`;
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new AbortCause('deadline', `${name} passed`)),
    deadlineMs,
  );
  return {
    deadlineMs,
    waited,
    name,
    signal: controller.signal,
    remaining: () => deadlineMs - (performance.now() - started),
    dispose: () => clearTimeout(timer),
  };
}

/** How the scan's sessions are opened (the target's, and the peer's with the same identities). */
function sessionOptionsOf(
  config: ScanConfig,
  identities: Record<IdentityName, string>,
  redactor: Redactor,
  timeoutMs: number,
  signal: AbortSignal,
): SessionOptions {
  return {
    identities,
    principalMetaKey: config.principalMetaKey ?? DEFAULT_PRINCIPAL_META_KEY,
    timeoutMs,
    startupTimeoutMs: config.startupTimeoutMs ?? SCAN_DEFAULTS.startupTimeoutMs,
    maxAnswerBytes: config.maxAnswerBytes ?? SCAN_DEFAULTS.maxAnswerBytes,
    redactor,
    signal,
    clientInfo: { name: 'stateguard', version: packageVersion() },
    ...(config.identityHeader === undefined ? {} : { identityHeader: config.identityHeader }),
    ...(config.identityEnv === undefined ? {} : { identityEnv: config.identityEnv }),
    ...(config.headers === undefined ? {} : { headers: config.headers }),
  };
}

/** The peer (`--peer`, `--peer-stdio`), opened once when a probe that uses it is about to run. */
function peerOpener(
  settings: ProbeSettings,
  options: SessionOptions,
  target: EngineSession,
  onOpening: (exchanges: number) => void,
): { open: ScanRun['openPeer']; close: () => Promise<void> } {
  let peer: Promise<EngineSession | { problem: string }> | undefined;
  const era = target.protocol.era;
  const open = async (
    p: ProbeSettings['peer'] & object,
  ): Promise<EngineSession | { problem: string }> => {
    const opened = await openSession(p, options);
    onOpening(exchangesIn(opened.evidence));
    const problem =
      opened.problem ??
      (opened.session.protocol.era !== era
        ? `the peer speaks ${opened.session.protocol.era}, the target ${era}`
        : undefined);
    if (problem === undefined) return opened.session;
    await opened.session.close();
    return { problem };
  };
  return {
    open: async () => {
      if (settings.peer === undefined) return undefined;
      peer ??= open(settings.peer);
      return peer;
    },
    close: async () => {
      const opened = await peer;
      if (opened !== undefined && !('problem' in opened)) await opened.close();
    },
  };
}

/** What `--plan` shows: the target's call plan, and what opening it found. */
export interface PlanOnly {
  readonly display: string;
  readonly plan: CallPlan;
  readonly protocol: ProtocolInfo;
  /** Set when the target answered nothing usable. */
  readonly problem?: string;
  /** `--allow-tool` names the target does not list. */
  readonly unlisted: string[];
}

/**
 * Opens the target, reads its lists and builds the call plan, calling no tool, prompt or
 * resource (`--plan`). Never throws for a target problem.
 */
export async function planTarget(config: ScanConfig): Promise<PlanOnly> {
  const timeoutMs = checkedMs('timeoutMs', config.timeoutMs ?? SCAN_DEFAULTS.timeoutMs);
  const clock = startClock(config, 0);
  const identities = {
    A: config.identities?.A ?? randomIdentity('A'),
    B: config.identities?.B ?? randomIdentity('B'),
  };
  const redactor = createRedactor(identities, [
    ...(config.headers ?? []).map((h) => ({ placeholder: `<header ${h.name}>`, value: h.value })),
    ...(config.secrets ?? []),
  ]);
  const display = displayTarget(config.target, redactor);
  try {
    const opened = await openSession(
      config.target,
      sessionOptionsOf(config, identities, redactor, timeoutMs, clock.signal),
    );
    await opened.session.close();
    const word = {
      includeDestructive: config.includeDestructive ?? false,
      allowTools: config.allowTools ?? [],
    };
    const { protocol } = opened.session;
    return {
      display,
      plan: redactPlan(buildCallPlan(protocol, word), redactor),
      protocol,
      unlisted: unlistedAllowed(protocol, word),
      ...(opened.problem === undefined ? {} : { problem: redactor.string(opened.problem) }),
    };
  } finally {
    clock.dispose();
  }
}

/**
 * Runs a scan. Never throws for a target problem; the report says what happened. Throws
 * `RangeError` for a limit no timer can hold.
 */
export async function runScan(config: ScanConfig): Promise<RunReport> {
  const startedAt = new Date().toISOString();
  const started = performance.now();
  const timeoutMs = checkedMs('timeoutMs', config.timeoutMs ?? SCAN_DEFAULTS.timeoutMs);
  checkedMs('startupTimeoutMs', config.startupTimeoutMs ?? SCAN_DEFAULTS.startupTimeoutMs);
  const settings = config.settings ?? {};
  const waitOf = (p: Probe): number => Math.max(0, p.waitMs?.(settings) ?? 0);
  // A deliberate wait is not the target's slowness: the deadline grows by exactly that much.
  const clock = startClock(
    config,
    config.probes.reduce((sum, p) => sum + waitOf(p), 0),
  );
  const identities = {
    A: config.identities?.A ?? randomIdentity('A'),
    B: config.identities?.B ?? randomIdentity('B'),
  };
  const redactor = createRedactor(identities, [
    ...(config.headers ?? []).map((h) => ({ placeholder: `<header ${h.name}>`, value: h.value })),
    ...(config.secrets ?? []),
  ]);
  const display = displayTarget(config.target, redactor);
  const progress = config.onProgress ?? (() => undefined);
  progress({ phase: 'open', target: display });
  // Paces per server, one per identity (target/pace.ts): the target's, and the peer's (a server of
  // its own, shedding on its own).
  const paces = [createServerPaces(clock.remaining), createServerPaces(clock.remaining)] as const;
  const options = {
    ...sessionOptionsOf(config, identities, redactor, timeoutMs, clock.signal),
    paces: paces[0],
  };
  const opened = await openSession(config.target, options);
  const { session } = opened;
  let opening = exchangesIn(opened.evidence);
  const peer = peerOpener(
    settings,
    { ...options, paces: paces[1] },
    session,
    (n) => (opening += n),
  );
  progress({ phase: 'opened', era: session.protocol.era, tools: session.protocol.tools.length });
  let phases: Awaited<ReturnType<typeof runPhases>>;
  try {
    const run: ScanRun = {
      probes: config.probes,
      includeDestructive: config.includeDestructive ?? false,
      allowTools: config.allowTools ?? [],
      allowMintedInRisky: config.allowMintedInRisky ?? false,
      serial: config.serial ?? false,
      settings,
      session,
      redactor,
      progress,
      clock,
      timeoutMs,
      waitOf,
      openPeer: peer.open,
    };
    phases = await runPhases(run, opened);
  } finally {
    clock.dispose();
    await session.close();
    await peer.close();
  }
  const shed = shedSummary(paces.flatMap((p) => [p.A, p.B]));
  return buildReport({
    kind: config.target.kind,
    word: {
      includeDestructive: config.includeDestructive ?? false,
      allowTools: config.allowTools ?? [],
    },
    redactor,
    display,
    protocol: session.protocol,
    startedAt,
    ms: Math.round(performance.now() - started),
    ...(opened.problem === undefined ? {} : { problem: opened.problem }),
    ...phases,
    probes: config.probes,
    opening,
    ...(shed === undefined ? {} : { shed }),
  });
}
