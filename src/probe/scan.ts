/**
 * One scan: open a session on the target, run the selected probes within the deadline, close the
 * session, and return the canonical {@link RunReport}. A target that cannot be reached still yields a
 * full report, every probe `errored` with what did not answer.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { quote } from 'shell-quote';
import { undecidedCount } from './decided.js';
import type { Probe, ProbeSettings } from './define.js';
import { createRedactor, noteEvidence, stderrEvidence } from './evidence/evidence.js';
import type { ExtraSecret, Redactor } from './evidence/evidence.js';
import { centralResult, runProbe } from './run.js';
import { runSurvey, SURVEY } from './surface/run-survey.js';
import { recipeName, type SurfaceMap } from './surface/recipes.js';
import type { Offer } from './surface/survey.js';
import { DEFAULT_PRINCIPAL_META_KEY, openSession } from './target/session.js';
import type { EngineSession, SessionOptions } from './target/session.js';
import { createMintedValues, riskReason, uncalledTools } from './surface/tool-risk.js';
import { AbortCause } from './target/jsonrpc.js';
import type { Evidence, IdentityName, ProbeResult, RunReport, Target } from './types.js';

/** Defaults of a scan. */
export const SCAN_DEFAULTS = {
  timeoutMs: 5000,
  startupTimeoutMs: 10_000,
  deadlineMs: 30_000,
  maxAnswerBytes: 1024 * 1024,
} as const;

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
  /** Let a server-minted value reach a risky parameter (`--allow-minted-in-risky`). */
  readonly allowMintedInRisky?: boolean;
  /**
   * `--expiry-wait`, `--peer`, `--peer-stdio`. A probe that waits on purpose (`state/expiry`)
   * extends the deadline by its wait.
   */
  readonly settings?: ProbeSettings;
  readonly onProgress?: (event: ScanProgress) => void;
}

/** Progress of a scan, for a CLI's stderr. */
export type ScanProgress =
  | { readonly phase: 'open'; readonly target: string }
  | { readonly phase: 'opened'; readonly era: string; readonly tools: number }
  | { readonly phase: 'probe'; readonly id: string }
  | { readonly phase: 'result'; readonly result: ProbeResult };

/** The package version, read once. */
export function packageVersion(): string {
  const url = new URL('../../package.json', import.meta.url);
  return (JSON.parse(readFileSync(url, 'utf8')) as { version: string }).version;
}

/** A fresh random identity secret: recognisable in echoes, unguessable. */
export function randomIdentity(name: IdentityName): string {
  return `stateguard-${name.toLowerCase()}-${randomBytes(12).toString('base64url')}`;
}

/** How a target is named in reports: `stdio:<command line>` or the URL without credentials. */
export function displayTarget(target: Target, redactor?: Redactor): string {
  let shown: string;
  if (target.kind === 'stdio') {
    shown = `stdio:${quote([target.command, ...target.args])}`;
  } else {
    try {
      const url = new URL(target.url);
      if (url.password) url.password = 'redacted';
      shown = url.toString();
    } catch {
      shown = target.url;
    }
  }
  return redactor ? redactor.string(shown) : shown;
}

/** What discovery found, as the report shows it. */
function shownSurface(
  found: { map: SurfaceMap; evidence: Evidence[] },
  redactor: Redactor,
): NonNullable<RunReport['surface']> {
  return {
    handles: found.map.handles.map((h) => redactor.string(recipeName(h))),
    flows: found.map.flows.map((f) => redactor.string(f.subject)),
    tried: found.map.tried.map((t) => redactor.string(t)),
    ...(found.map.notReached === undefined
      ? {}
      : {
          notReached: found.map.notReached.map((n) => ({
            tool: redactor.string(n.tool),
            why: redactor.string(n.why),
          })),
        }),
    evidence: found.evidence,
  };
}

/**
 * One result of a probe run twice, without and then with the held-back tools: the second when the
 * first found nothing to test or the second confirms; else the first, which notes the second.
 */
function mergedResult(first: ProbeResult, second: ProbeResult, redactor: Redactor): ProbeResult {
  if (first.verdict === 'skipped' || second.verdict === 'confirmed') return second;
  const detail = `after every other probe, with the tools --include-destructive unlocks: ${second.verdict}: ${second.reason}`;
  return {
    ...first,
    observations: [
      ...first.observations,
      { label: 'held-back tools', detail: redactor.string(detail) },
    ],
    evidence: [...first.evidence, noteEvidence(redactor, detail), ...second.evidence],
    ms: first.ms + second.ms,
  };
}

/** The largest delay a Node.js timer honours; a longer one fires at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** A limit in ms that a timer can hold; anything else is misuse (`RangeError`, naming the field). */
function checkedMs(name: string, ms: number): number {
  if (!Number.isFinite(ms) || ms <= 0 || ms > MAX_TIMER_MS)
    throw new RangeError(`${name} must be a number of ms in 1..${MAX_TIMER_MS}`);
  return ms;
}

/**
 * Runs a scan. Never throws for a target problem; the report says what happened. Throws
 * `RangeError` for a limit no timer can hold.
 */
export async function runScan(config: ScanConfig): Promise<RunReport> {
  const started = performance.now();
  const startedAt = new Date().toISOString();
  const timeoutMs = checkedMs('timeoutMs', config.timeoutMs ?? SCAN_DEFAULTS.timeoutMs);
  checkedMs('startupTimeoutMs', config.startupTimeoutMs ?? SCAN_DEFAULTS.startupTimeoutMs);
  const settings = config.settings ?? {};
  const waitOf = (p: Probe): number => Math.max(0, p.waitMs?.(settings) ?? 0);
  // A deliberate wait is not the target's slowness: the deadline grows by exactly that much.
  const waited = config.probes.reduce((sum, p) => sum + waitOf(p), 0);
  const deadlineMs = checkedMs(
    'deadlineMs',
    (config.deadlineMs ?? SCAN_DEFAULTS.deadlineMs) + waited,
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
  // Every message that a limit fired names the limit and the flag that sets it: a timeout must not
  // read as the server's fault when the limit was the user's.
  const deadlineName = `the scan deadline (${deadlineMs} ms, set by --deadline)`;
  const deadline = new AbortController();
  const deadlineTimer = setTimeout(
    () => deadline.abort(new AbortCause('deadline', `${deadlineName} passed`)),
    deadlineMs,
  );
  const remaining = (): number => deadlineMs - (performance.now() - started);

  progress({ phase: 'open', target: display });
  const sessionOptions: SessionOptions = {
    identities,
    principalMetaKey: config.principalMetaKey ?? DEFAULT_PRINCIPAL_META_KEY,
    timeoutMs,
    startupTimeoutMs: config.startupTimeoutMs ?? SCAN_DEFAULTS.startupTimeoutMs,
    maxAnswerBytes: config.maxAnswerBytes ?? SCAN_DEFAULTS.maxAnswerBytes,
    redactor,
    signal: deadline.signal,
    clientInfo: { name: 'stateguard', version: packageVersion() },
    ...(config.identityHeader === undefined ? {} : { identityHeader: config.identityHeader }),
    ...(config.identityEnv === undefined ? {} : { identityEnv: config.identityEnv }),
    ...(config.headers === undefined ? {} : { headers: config.headers }),
  };
  const opened = await openSession(config.target, sessionOptions);
  const { session } = opened;
  // The peer (`--peer`, `--peer-stdio`): opened with the same identities when a probe that uses it
  // is about to run, and closed with the target.
  let peer: EngineSession | { problem: string } | undefined;
  const openPeer = async (): Promise<EngineSession | { problem: string } | undefined> => {
    if (settings.peer === undefined) return undefined;
    if (peer !== undefined) return peer;
    const p = await openSession(settings.peer, sessionOptions);
    peer =
      p.problem !== undefined
        ? { problem: p.problem }
        : p.session.protocol.era !== protocol.era
          ? { problem: `the peer speaks ${p.session.protocol.era}, the target ${protocol.era}` }
          : p.session;
    if ('problem' in peer) await p.session.close();
    return peer;
  };
  const { protocol } = session;
  progress({ phase: 'opened', era: protocol.era, tools: protocol.tools.length });

  // The opening's exchanges back every verdict the runner gives centrally.
  const openingEvidence = (): Evidence[] => {
    const stderr = session.takeStderr();
    return stderr.length > 0
      ? [...opened.evidence, stderrEvidence(redactor, stderr)]
      : [...opened.evidence];
  };
  const results: ProbeResult[] = [];
  let surface: RunReport['surface'];
  const minted = createMintedValues();
  try {
    if (opened.problem !== undefined || protocol.era === 'unknown') {
      const reason = opened.problem ?? 'the target answered nothing usable';
      const evidence = openingEvidence();
      for (const probe of config.probes)
        results.push(centralResult(probe, 'errored', reason, evidence, redactor));
    } else {
      // A legacy (2025-11-25) server has no requestState; only the probes whose property does not
      // depend on the era run there, and every other one is skipped with the precondition named.
      const legacy = protocol.era === 'legacy';
      const legacyReason =
        `precondition: a 2026-07-28 server; the target speaks ${protocol.protocolVersion ?? 'an older version'} ` +
        '(answered initialize), so it has no requestState or input_required surface to probe';
      const runnable = legacy ? config.probes.filter((p) => p.runsOnLegacy) : [...config.probes];
      const skippedEvidence =
        legacy && runnable.length < config.probes.length ? openingEvidence() : [];
      const includeDestructive = config.includeDestructive ?? false;
      const allowMintedInRisky = config.allowMintedInRisky ?? false;
      // With --include-destructive, the tools it unlocks are held back: every probe first runs
      // without them, and only then a second pass surveys them and runs again the probes that
      // found nothing to confirm, so a destructive consumer never destroys a value a later
      // probe needs (docs/scanner.md, "What the scanner sends").
      const heldBack =
        includeDestructive && protocol.tools.some((t) => riskReason(t) !== undefined);
      const offers: Offer[] = [];
      const surveyCap = (): number => Math.max(0, Math.min(remaining(), (deadlineMs - waited) / 3));
      let found: Awaited<ReturnType<typeof runSurvey>> | undefined;
      if (runnable.length > 0) {
        progress({ phase: 'probe', id: SURVEY.id });
        found = await runSurvey(session, {
          includeDestructive: includeDestructive && !heldBack,
          allowMintedInRisky,
          minted,
          redactor,
          offers,
          capMs: surveyCap(),
          capName: 'the survey time cap (a third of --deadline)',
        });
        surface = shownSurface(found, redactor);
      }
      // What one probe run needs besides the probe; `pass` 2 is the held-back tools' pass.
      const runOne = async (
        probe: Probe,
        map: SurfaceMap | undefined,
        pass: 1 | 2,
        capMs: number,
        left: number,
        read: () => void,
      ): Promise<ProbeResult> => {
        progress({ phase: 'probe', id: probe.id });
        const peerOf = probe.usesPeer ? await openPeer() : undefined;
        return runProbe(probe, session, {
          ...(map === undefined ? {} : { surface: map }),
          ...(peerOf === undefined ? {} : { peer: peerOf }),
          settings,
          includeDestructive: includeDestructive && (pass === 2 || !heldBack),
          allowMintedInRisky,
          minted,
          redactor,
          capMs,
          heldBack: heldBack && pass === 1,
          onSurfaceRead: read,
          capName:
            capMs === left
              ? deadlineName
              : `its time cap (${Math.round(capMs)} ms, its share of --deadline)`,
        });
      };
      const readSurface = new Set<Probe>();
      let index = 0;
      for (const probe of config.probes) {
        if (!runnable.includes(probe)) {
          results.push(centralResult(probe, 'skipped', legacyReason, skippedEvidence, redactor));
          continue;
        }
        const left = remaining();
        if (left <= 0) {
          const reason = `not run: ${deadlineName} passed before it started`;
          // Even a probe that never ran carries its evidence: the note of why, never an empty list.
          const note = noteEvidence(redactor, reason);
          results.push(centralResult(probe, 'errored', reason, [note], redactor));
          index++;
          continue;
        }
        // A fair share of what is left (besides the waits still to come, and the held-back pass
        // as one more share), but never less than one call's timeout (when time allows), plus
        // this probe's own wait.
        const waitsLeft = runnable.slice(index).reduce((sum, p) => sum + waitOf(p), 0);
        const shares = runnable.length - index + (heldBack ? 1 : 0);
        const share = Math.max(0, left - waitsLeft) / shares;
        const capMs = Math.min(left, Math.max(share, timeoutMs + 1000) + waitOf(probe));
        index++;
        const result = await runOne(probe, found?.map, 1, capMs, left, () =>
          readSurface.add(probe),
        );
        results.push(result);
        if (!heldBack) progress({ phase: 'result', result });
      }
      if (heldBack && found !== undefined && remaining() > 0) {
        // Pass 2: the held-back tools, offered what pass 1 minted, and the probes that read the
        // surface and found nothing to confirm, on what only those tools offer.
        progress({ phase: 'probe', id: SURVEY.id });
        const later = await runSurvey(session, {
          includeDestructive: true,
          allowMintedInRisky,
          minted,
          redactor,
          offers,
          only: (t) => riskReason(t) !== undefined,
          capMs: surveyCap(),
          capName: 'the survey time cap (a third of --deadline)',
        });
        const first = found.map;
        const map: SurfaceMap = {
          ...later.map,
          tried: [...first.tried, ...later.map.tried.map((t) => `${t}, held back until now`)],
        };
        const joined = shownSurface(
          {
            map: {
              ...map,
              handles: [...first.handles, ...later.map.handles],
              flows: [...first.flows, ...later.map.flows],
              failures: [...first.failures, ...later.map.failures],
            },
            evidence: [...found.evidence, ...later.evidence],
          },
          redactor,
        );
        surface = joined;
        const offered = later.map.handles.length > 0 || later.map.flows.length > 0;
        const again = results.filter((r) => {
          const probe = config.probes.find((p) => p.id === r.id);
          if (probe === undefined || !readSurface.has(probe)) return false;
          if (r.verdict === 'skipped') return true;
          // A refuted probe is tried again on what is new; one that waited on purpose waits once.
          return r.verdict === 'refuted' && offered && waitOf(probe) === 0;
        });
        for (const [i, r] of again.entries()) {
          const probe = config.probes.find((p) => p.id === r.id) as Probe;
          const left = remaining();
          if (left <= 0) break;
          const share = left / (again.length - i);
          const capMs = Math.min(left, Math.max(share, timeoutMs + 1000) + waitOf(probe));
          const second = await runOne(probe, map, 2, capMs, left, () => undefined);
          results[results.indexOf(r)] = mergedResult(r, second, redactor);
        }
      }
      if (heldBack) for (const result of results) progress({ phase: 'result', result });
    }
  } finally {
    clearTimeout(deadlineTimer);
    await session.close();
    if (peer !== undefined && !('problem' in peer)) await peer.close();
  }

  const { tools, prompts, resources, resourceTemplates, deviations, ...rest } = protocol;
  const shown = (list: readonly string[]): string[] => list.map((x) => redactor.string(x));
  // Listed once per scan, whatever the probes tried: what the user would have to opt in to.
  const uncalled = uncalledTools(tools, config.includeDestructive ?? false).map((u) => ({
    tool: redactor.string(u.tool),
    why: redactor.string(u.why),
    flag: u.flag,
  }));
  return {
    schemaVersion: 1,
    tool: { name: 'stateguard', version: packageVersion() },
    target: { kind: config.target.kind, display },
    protocol: {
      ...rest,
      toolNames: shown(tools.map((t) => t.name)),
      ...(prompts.length > 0 ? { promptNames: shown(prompts.map((p) => p.name)) } : {}),
      ...(resources.length > 0 ? { resources: shown(resources) } : {}),
      ...(resourceTemplates.length > 0 ? { resourceTemplates: shown(resourceTemplates) } : {}),
      ...(deviations.length > 0 ? { deviations: shown(deviations) } : {}),
    },
    ...(surface === undefined ? {} : { surface }),
    startedAt,
    ms: Math.round(performance.now() - started),
    ...(opened.problem !== undefined ? { problem: redactor.string(opened.problem) } : {}),
    undecided: undecidedCount(results),
    probes: results,
    ...(uncalled.length > 0 ? { uncalled } : {}),
  };
}
