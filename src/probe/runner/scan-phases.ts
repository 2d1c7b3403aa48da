/**
 * The phases of a scan once the target is open: discovery, then the probes (side by side where they
 * cannot interfere, `schedule.ts`), then, with `--include-destructive`, the held-back tools' pass.
 * A target that answered nothing usable, or a legacy one, is handled here centrally, so probes
 * never see a session they cannot run on.
 */
import type { Probe, ProbeSettings } from '../model/probe.js';
import { noteEvidence, stderrEvidence } from '../evidence/evidence.js';
import type { Redactor } from '../evidence/evidence.js';
import { centralResult, runProbe } from './run.js';
import { planProbes, runLanes } from './schedule.js';
import { shownSurface } from './scan-report.js';
import { createSetupStore, type SetupStore } from './shared-setup.js';
import { runSurvey, SURVEY, type Survey } from './run-survey.js';
import { recipeName, type SurfaceMap } from '../surface/recipes.js';
import type { Offer } from '../surface/survey.js';
import { permissionOf } from '../plan/call-plan.js';
import { createMintedValues, type MintedValues } from './minted-values.js';
import { byDefault, grantOf, type CallPermission } from '../plan/tool-risk.js';
import type { EngineSession, OpenedSession } from '../target/session.js';
import type { Evidence } from '../model/evidence.js';
import type { ProbeResult, RunReport } from '../model/report.js';
import type { ToolInfo } from '../model/tools.js';

/**
 * How many lanes of probes run at a time: every lane of a full scan, so the scan takes as long as
 * its longest lane. Each probe sends one request at a time, so this is also the most requests in
 * flight at once.
 */
const LANES_AT_ONCE = 12;

/** A pass without the user's word: the call plan's `read` and `create` tools only. */
const NOBODY: CallPermission = { includeDestructive: false };

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
  /** `--allow-tool`: tools the user lets the last pass call. */
  readonly allowTools: readonly string[];
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
  /** Requests the probes' shared setup sent (`shared-setup.ts`), counted in no probe's own. */
  readonly shared: number;
  /** The probes that ended errored beside others and were run again alone, in order. */
  readonly rerunAlone?: readonly string[];
  /** What this scan's calls created on the target (runner/minted-values.ts), unredacted. */
  readonly created?: readonly { readonly tool: string; readonly value: string }[];
}

/** The state of one scan's probe passes. */
interface Passes {
  readonly run: ScanRun;
  /** The tools the user's word unlocks wait for pass 2 (see {@link runPhases}). */
  readonly heldBack: boolean;
  /** What the pass where the user's word is in force may call. */
  readonly unlocked: CallPermission;
  readonly minted: MintedValues;
  readonly offers: Offer[];
  /** The probes that ran while another did. */
  readonly overlapped: Set<Probe>;
  /** The probes a request of which the target did not answer. */
  readonly failed: Set<Probe>;
  readonly active: Set<Probe>;
  /** The probes that read what discovery found or what the user's word lets them call. */
  readonly wordRead: Set<Probe>;
  /** The flows and untouched runs set up once for every probe. */
  readonly setup: SetupStore;
  /** The probes run again alone (see {@link firstPass}). */
  readonly rerun: string[];
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
      shared: 0,
    };
  }
  // A legacy (2025-11-25) server has no requestState; only the probes whose property does not
  // depend on the era run there, and every other one is skipped with the precondition named.
  const legacy = protocol.era === 'legacy';
  const runnable = legacy ? probes.filter((p) => p.runsOnLegacy) : [...probes];
  const passes: Passes = {
    run,
    // With the user's word (--include-destructive, --allow-tool), the tools it unlocks are held
    // back: every probe first runs without them, then a second, full pass surveys the whole
    // surface and runs every probe again that did not confirm, so a destructive consumer never
    // destroys a value an earlier probe needs (docs/scanner.md, "What a scan calls").
    heldBack: protocol.tools.some(
      (t) => !byDefault(t) && grantOf(t, permissionOf(run)) !== undefined,
    ),
    unlocked: permissionOf(run),
    minted: createMintedValues(),
    offers: [],
    overlapped: new Set(),
    failed: new Set(),
    active: new Set(),
    wordRead: new Set(),
    setup: createSetupStore(),
    rerun: [],
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
  if (found === undefined)
    return { results, survey: 0, shared: 0, created: passes.minted.created() };
  const later = passes.heldBack
    ? await secondPass(passes, results, found, new Set(done.keys()))
    : undefined;
  if (passes.heldBack) for (const result of results) run.progress({ phase: 'result', result });
  const surface = later?.surface ?? shownSurface(found, redactor);
  return {
    results,
    surface,
    survey: found.requests + (later?.requests ?? 0),
    shared: passes.setup.calls,
    ...(passes.rerun.length === 0 ? {} : { rerunAlone: passes.rerun }),
    created: passes.minted.created(),
  };
}

/**
 * Whether pass `pass` holds back the tools the user's word unlocks: pass 1 of a scan that has any.
 * The one rule for what a pass may call, its time shares and how its skips read.
 */
const holdsBack = (passes: Passes, pass: 1 | 2): boolean => passes.heldBack && pass === 1;

/** What pass `pass` may call: without the user's word until the last pass. */
const permissionIn = (passes: Passes, pass: 1 | 2): CallPermission =>
  holdsBack(passes, pass) ? NOBODY : passes.unlocked;

/**
 * Discovery: pass 1 leaves the held-back tools alone; pass 2 calls them, offers them every value
 * minted so far, and offers what they mint to every consumer, the tools of pass 1 first.
 */
async function survey(passes: Passes, pass: 1 | 2, before?: Survey): Promise<Survey> {
  const { run } = passes;
  // Pass 2 calls the unlocked tools, and any tool pass 1 did not reach (its time cap, its budget):
  // a creator it never called may mint what only an unlocked consumer takes.
  const missed = new Set((before?.map.notReached ?? []).map((n) => n.tool));
  run.progress({ phase: 'probe', id: SURVEY.id });
  const { clock } = run;
  return runSurvey(run.session, {
    ...permissionIn(passes, pass),
    allowMintedInRisky: run.allowMintedInRisky,
    minted: passes.minted,
    redactor: run.redactor,
    offers: passes.offers,
    ...(pass === 2
      ? {
          only: (t: ToolInfo) => !byDefault(t) || missed.has(t.name),
          alsoConsumers: run.session.protocol.tools.filter(
            (t) => byDefault(t) && !missed.has(t.name),
          ),
        }
      : {}),
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
    passes.rerun.push(probe.id);
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
  const shares = rest.length + (holdsBack(passes, pass) ? 1 : 0);
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
      ...permissionIn(passes, pass),
      allowMintedInRisky: run.allowMintedInRisky,
      minted: passes.minted,
      redactor: run.redactor,
      capMs,
      heldBack: holdsBack(passes, pass),
      deadline: run.clock.signal,
      onFailure: () => passes.failed.add(probe),
      onWordRead: () => passes.wordRead.add(probe),
      setup: passes.setup,
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
 * Pass 2, the user's word in force: discovery again over the whole surface, every value minted so
 * far offered to every consumer, then every probe that ran and did not confirm runs again (the task
 * and session probes too), one after another.
 */
async function secondPass(
  passes: Passes,
  results: ProbeResult[],
  found: Survey,
  ran: ReadonlySet<Probe>,
): Promise<{ surface: NonNullable<RunReport['surface']>; requests: number } | undefined> {
  const { run } = passes;
  if (run.clock.remaining() <= 0) return undefined;
  const later = await survey(passes, 2, found);
  const first = found.map;
  const map: SurfaceMap = {
    ...later.map,
    tried: [...first.tried, ...later.map.tried.map((t) => `${t}, with the user's word`)],
  };
  const joined: SurfaceMap = {
    ...map,
    handles: uniqueBy([...first.handles, ...later.map.handles], recipeName),
    flows: uniqueBy([...first.flows, ...later.map.flows], (f) => f.subject),
    failures: [...first.failures, ...later.map.failures],
  };
  const surface = shownSurface(
    { map: joined, evidence: [...found.evidence, ...later.evidence] },
    run.redactor,
  );
  const offered = later.map.handles.length > 0 || later.map.flows.length > 0;
  // A probe that read neither the surface nor the user's word (a transport's own check) would
  // send the same requests and decide the same: it is not run again.
  const again = run.probes.filter((probe) => {
    const r = results[run.probes.indexOf(probe)];
    if (r === undefined || !ran.has(probe) || !passes.wordRead.has(probe)) return false;
    if (r.verdict === 'skipped') return true;
    // A refuted probe is tried again on what is new; one that waited on purpose waits once.
    return r.verdict === 'refuted' && offered && run.waitOf(probe) === 0;
  });
  // One after another from here: a flow that consumes its object is set up once too.
  passes.setup.serial = true;
  for (const [index, probe] of again.entries()) {
    if (run.clock.remaining() <= 0) break;
    const at = run.probes.indexOf(probe);
    const second = await runCapped(passes, probe, again.slice(index), map, 2);
    results[at] = mergedResult(results[at]!, second, run.redactor);
  }
  return { surface, requests: later.requests };
}

/** The items of `list` whose key is first seen, in order. */
function uniqueBy<T>(list: readonly T[], key: (item: T) => string): T[] {
  const seen = new Set<string>();
  return list.filter((item) => !seen.has(key(item)) && seen.add(key(item)) !== undefined);
}

/**
 * One result of a probe run twice, without and then with the held-back tools: the second when the
 * first found nothing to test or the second confirms; else the first, which notes the second.
 */
function mergedResult(first: ProbeResult, second: ProbeResult, redactor: Redactor): ProbeResult {
  const requests = (first.requests ?? 0) + (second.requests ?? 0);
  if (first.verdict === 'skipped' || second.verdict === 'confirmed') return { ...second, requests };
  const detail = `after every other probe, with the tools the user's word unlocks: ${second.verdict}: ${second.reason}`;
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
