/**
 * The phases of a scan once the target is open: discovery, then the probes (side by side where they
 * cannot interfere, `schedule.ts`), then, with `--include-destructive`, the held-back tools' pass.
 * A target that answered nothing usable, or a legacy one, is handled here centrally, so probes
 * never see a session they cannot run on.
 */
import type { Probe, ProbeSettings } from './define.js';
import { noteEvidence, stderrEvidence } from './evidence/evidence.js';
import type { Redactor } from './evidence/evidence.js';
import { centralResult, runProbe } from './run.js';
import { planProbes, runLanes } from './schedule.js';
import { shownSurface } from './scan-report.js';
import { runSurvey, SURVEY, type Survey } from './surface/run-survey.js';
import type { SurfaceMap } from './surface/recipes.js';
import type { Offer } from './surface/survey.js';
import { createMintedValues, riskReason, type MintedValues } from './surface/tool-risk.js';
import type { EngineSession, OpenedSession } from './target/session.js';
import type { Evidence, ProbeResult, RunReport } from './types.js';

/**
 * How many lanes of probes run at a time: every lane of a full scan, so the scan takes as long as
 * its longest lane. Each probe sends one request at a time, so this is also the most requests in
 * flight at once.
 */
const LANES_AT_ONCE = 12;

/** The scan's deadline, as the phases read it. */
export interface ScanClock {
  readonly deadlineMs: number;
  /** The probes' deliberate waits, included in `deadlineMs`. */
  readonly waited: number;
  /** The deadline as a limit's message names it. */
  readonly name: string;
  readonly signal: AbortSignal;
  remaining(): number;
  dispose(): void;
}

/** Progress events the phases emit (a subset of the scan's). */
export type PhaseProgress =
  | { readonly phase: 'probe'; readonly id: string }
  | { readonly phase: 'result'; readonly result: ProbeResult };

/** What every phase of one scan shares. */
export interface ScanRun {
  readonly probes: readonly Probe[];
  readonly includeDestructive: boolean;
  readonly allowMintedInRisky: boolean;
  readonly serial: boolean;
  readonly settings: ProbeSettings;
  readonly session: EngineSession;
  readonly redactor: Redactor;
  readonly progress: (event: PhaseProgress) => void;
  readonly clock: ScanClock;
  readonly timeoutMs: number;
  readonly waitOf: (probe: Probe) => number;
  readonly openPeer: () => Promise<EngineSession | { readonly problem: string } | undefined>;
}

/** What the phases found: every probe's result in registry order, and what discovery saw. */
export interface PhaseResults {
  readonly results: ProbeResult[];
  readonly surface?: RunReport['surface'];
  /** Requests discovery sent (both passes). */
  readonly survey: number;
}

/** The state of one scan's probe passes. */
interface Passes {
  readonly run: ScanRun;
  /** The tools `--include-destructive` unlocks wait for pass 2 (see {@link runPhases}). */
  readonly heldBack: boolean;
  readonly minted: MintedValues;
  readonly offers: Offer[];
  /** The probes that read what discovery found (a probe that did may run again in pass 2). */
  readonly readSurface: Set<Probe>;
  /** The probes that ran while another did. */
  readonly overlapped: Set<Probe>;
  /** The probes a request of which the target did not answer. */
  readonly failed: Set<Probe>;
  readonly active: Set<Probe>;
}

/** Runs the phases on an opened target. Never throws for a target problem. */
export async function runPhases(run: ScanRun, opened: OpenedSession): Promise<PhaseResults> {
  const { session, redactor, probes } = run;
  const { protocol } = session;
  // The opening's exchanges back every verdict the runner gives centrally.
  const openingEvidence = (): Evidence[] => {
    const stderr = session.takeStderr();
    return stderr.length > 0
      ? [...opened.evidence, stderrEvidence(redactor, stderr)]
      : [...opened.evidence];
  };
  if (opened.problem !== undefined || protocol.era === 'unknown') {
    const reason = opened.problem ?? 'the target answered nothing usable';
    const evidence = openingEvidence();
    return {
      results: probes.map((p) => centralResult(p, 'errored', reason, evidence, redactor)),
      survey: 0,
    };
  }
  // A legacy (2025-11-25) server has no requestState; only the probes whose property does not
  // depend on the era run there, and every other one is skipped with the precondition named.
  const legacy = protocol.era === 'legacy';
  const runnable = legacy ? probes.filter((p) => p.runsOnLegacy) : [...probes];
  const passes: Passes = {
    run,
    // With --include-destructive, the tools it unlocks are held back: every probe first runs
    // without them, and only then a second pass surveys them and runs again the probes that
    // found nothing to confirm, so a destructive consumer never destroys a value a later probe
    // needs (docs/scanner.md, "What the scanner sends").
    heldBack: run.includeDestructive && protocol.tools.some((t) => riskReason(t) !== undefined),
    minted: createMintedValues(),
    offers: [],
    readSurface: new Set(),
    overlapped: new Set(),
    failed: new Set(),
    active: new Set(),
  };
  const skippedEvidence = runnable.length < probes.length ? openingEvidence() : [];
  const found = runnable.length > 0 ? await survey(passes, 1) : undefined;
  const done = found === undefined ? new Map() : await firstPass(passes, runnable, found.map);
  const legacyReason =
    `precondition: a 2026-07-28 server; the target speaks ${protocol.protocolVersion ?? 'an older version'} ` +
    '(answered initialize), so it has no requestState or input_required surface to probe';
  const results: ProbeResult[] = probes.map(
    (probe) =>
      done.get(probe) ?? centralResult(probe, 'skipped', legacyReason, skippedEvidence, redactor),
  );
  if (found === undefined) return { results, survey: 0 };
  const later = passes.heldBack ? await secondPass(passes, results, found) : undefined;
  if (passes.heldBack) for (const result of results) run.progress({ phase: 'result', result });
  const surface = later?.surface ?? shownSurface(found, redactor);
  return { results, surface, survey: found.requests + (later?.requests ?? 0) };
}

/** Discovery: pass 1 leaves the held-back tools alone; pass 2 surveys only them. */
async function survey(passes: Passes, pass: 1 | 2): Promise<Survey> {
  const { run } = passes;
  run.progress({ phase: 'probe', id: SURVEY.id });
  const { clock } = run;
  return runSurvey(run.session, {
    includeDestructive: pass === 2 || (run.includeDestructive && !passes.heldBack),
    allowMintedInRisky: run.allowMintedInRisky,
    minted: passes.minted,
    redactor: run.redactor,
    offers: passes.offers,
    ...(pass === 2 ? { only: (t) => riskReason(t) !== undefined } : {}),
    capMs: Math.max(0, Math.min(clock.remaining(), (clock.deadlineMs - clock.waited) / 3)),
    capName: 'the survey time cap (a third of --deadline)',
  });
}

/**
 * Pass 1: every runnable probe, lanes side by side, then the probes that run alone. A probe that
 * ended `errored` while another probe ran, after the target left a request of it unanswered (a
 * timeout, a 5xx, a broken connection), is run once more alone, and that result stands: what went
 * wrong may have been the company (a server that serves one request at a time, a rate limit), and
 * a verdict must not depend on it. One that the target answered and that still drew no decision
 * (a broken flow) would end the same alone.
 */
async function firstPass(
  passes: Passes,
  runnable: readonly Probe[],
  map: SurfaceMap,
): Promise<Map<Probe, ProbeResult>> {
  const { run } = passes;
  const plan = planProbes(runnable, {
    serial: run.serial,
    sessions: run.session.protocol.era === 'legacy',
  });
  const results = new Map<Probe, ProbeResult>();
  const step = async (probe: Probe, lane: readonly Probe[], index: number): Promise<void> => {
    const result = await runCapped(passes, probe, lane.slice(index), map, 1);
    results.set(probe, result);
    if (!passes.heldBack) run.progress({ phase: 'result', result });
  };
  await runLanes(plan.lanes, LANES_AT_ONCE, step);
  await runLanes([plan.solo], 1, step);
  const again = runnable.filter(
    (p) =>
      passes.overlapped.has(p) && passes.failed.has(p) && results.get(p)?.verdict === 'errored',
  );
  for (const [index, probe] of again.entries()) {
    if (run.clock.remaining() <= 0) break;
    const first = results.get(probe)!;
    const second = await runCapped(passes, probe, again.slice(index), map, 1);
    const note = `while other probes ran it ended errored (${first.reason}); run again alone`;
    results.set(probe, {
      ...second,
      observations: [...second.observations, { label: 'run again alone', detail: note }],
      evidence: [noteEvidence(run.redactor, note), ...second.evidence],
      requests: (first.requests ?? 0) + (second.requests ?? 0),
    });
    if (!passes.heldBack) run.progress({ phase: 'result', result: results.get(probe)! });
  }
  return results;
}

/**
 * Runs `probe` (the first of `rest`, the probes still to run one after another where it runs)
 * within its share of the time left: a fair share of what is left besides the waits still to
 * come, and the held-back pass as one more share, but never less than one call's timeout (when
 * time allows), plus this probe's own wait.
 */
async function runCapped(
  passes: Passes,
  probe: Probe,
  rest: readonly Probe[],
  map: SurfaceMap,
  pass: 1 | 2,
): Promise<ProbeResult> {
  const { run } = passes;
  const left = run.clock.remaining();
  if (left <= 0) {
    const reason = `not run: ${run.clock.name} passed before it started`;
    // Even a probe that never ran carries its evidence: the note of why, never an empty list.
    const note = noteEvidence(run.redactor, reason);
    return centralResult(probe, 'errored', reason, [note], run.redactor);
  }
  const waitsLeft = rest.reduce((sum, p) => sum + run.waitOf(p), 0);
  const shares = rest.length + (passes.heldBack && pass === 1 ? 1 : 0);
  const share = Math.max(0, left - waitsLeft) / shares;
  const capMs = Math.min(left, Math.max(share, run.timeoutMs + 1000) + run.waitOf(probe));
  run.progress({ phase: 'probe', id: probe.id });
  const peer = probe.usesPeer ? await run.openPeer() : undefined;
  if (passes.active.size > 0) for (const p of [probe, ...passes.active]) passes.overlapped.add(p);
  passes.active.add(probe);
  try {
    return await runProbe(probe, run.session, {
      surface: map,
      ...(peer === undefined ? {} : { peer }),
      settings: run.settings,
      includeDestructive: run.includeDestructive && (pass === 2 || !passes.heldBack),
      allowMintedInRisky: run.allowMintedInRisky,
      minted: passes.minted,
      redactor: run.redactor,
      capMs,
      heldBack: passes.heldBack && pass === 1,
      onSurfaceRead: () => (pass === 1 ? passes.readSurface.add(probe) : undefined),
      deadline: run.clock.signal,
      onFailure: () => passes.failed.add(probe),
      capName:
        capMs === left
          ? run.clock.name
          : `its time cap (${Math.round(capMs)} ms, its share of --deadline)`,
    });
  } finally {
    passes.active.delete(probe);
  }
}

/**
 * Pass 2: the held-back tools, offered what pass 1 minted, and the probes that read the surface
 * and found nothing to confirm, on what only those tools offer; one after another.
 */
async function secondPass(
  passes: Passes,
  results: ProbeResult[],
  found: Survey,
): Promise<{ surface: NonNullable<RunReport['surface']>; requests: number } | undefined> {
  const { run } = passes;
  if (run.clock.remaining() <= 0) return undefined;
  const later = await survey(passes, 2);
  const first = found.map;
  const map: SurfaceMap = {
    ...later.map,
    tried: [...first.tried, ...later.map.tried.map((t) => `${t}, held back until now`)],
  };
  const joined: SurfaceMap = {
    ...map,
    handles: [...first.handles, ...later.map.handles],
    flows: [...first.flows, ...later.map.flows],
    failures: [...first.failures, ...later.map.failures],
  };
  const surface = shownSurface(
    { map: joined, evidence: [...found.evidence, ...later.evidence] },
    run.redactor,
  );
  const offered = later.map.handles.length > 0 || later.map.flows.length > 0;
  const again = run.probes.filter((probe) => {
    const r = results[run.probes.indexOf(probe)];
    if (r === undefined || !passes.readSurface.has(probe)) return false;
    if (r.verdict === 'skipped') return true;
    // A refuted probe is tried again on what is new; one that waited on purpose waits once.
    return r.verdict === 'refuted' && offered && run.waitOf(probe) === 0;
  });
  for (const [index, probe] of again.entries()) {
    if (run.clock.remaining() <= 0) break;
    const at = run.probes.indexOf(probe);
    const second = await runCapped(passes, probe, again.slice(index), map, 2);
    results[at] = mergedResult(results[at]!, second, run.redactor);
  }
  return { surface, requests: later.requests };
}

/**
 * One result of a probe run twice, without and then with the held-back tools: the second when the
 * first found nothing to test or the second confirms; else the first, which notes the second.
 */
function mergedResult(first: ProbeResult, second: ProbeResult, redactor: Redactor): ProbeResult {
  const requests = (first.requests ?? 0) + (second.requests ?? 0);
  if (first.verdict === 'skipped' || second.verdict === 'confirmed') return { ...second, requests };
  const detail = `after every other probe, with the tools --include-destructive unlocks: ${second.verdict}: ${second.reason}`;
  return {
    ...first,
    observations: [
      ...first.observations,
      { label: 'held-back tools', detail: redactor.string(detail) },
    ],
    evidence: [...first.evidence, noteEvidence(redactor, detail), ...second.evidence],
    ms: first.ms + second.ms,
    requests,
  };
}
