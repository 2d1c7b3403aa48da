/**
 * Running discovery once per scan, before the probes, through the same runner as a probe: its
 * calls are recorded as evidence, bounded by a budget and a time cap, and a destructive tool is
 * refused exactly as for a probe. Every probe then starts from the same map of the surface.
 */
import { defineProbe, skipped } from '../model/probe.js';
import { runProbe, type ProbeRunOptions } from './run.js';
import type { EngineSession } from '../target/session.js';
import type { Evidence } from '../model/evidence.js';
import { EMPTY_SURFACE } from './run.js';
import type { SurfaceMap } from '../surface/recipes.js';
import { survey, surveyBudget, type SurveyOptions } from '../surface/survey.js';

/** The survey, as the runner sees it: never a verdict of its own, never in the registry. */
export const SURVEY = { id: 'surface/survey' } as const;

// The survey stops calling this long before its time cap (at most), so what it found is kept
// whole and what it did not reach is named, instead of being cut off mid-call.
const MARGIN_MS = 2_000;
// Longest wait, once the runner has returned, for a survey its cap cut mid-call to return its map.
// The cut call settles at once and every later call is refused at once, so it returns promptly.
const RETURN_MS = 500;

/** What discovery found, the exchanges that found it, and how many requests it sent. */
export interface Survey {
  readonly map: SurfaceMap;
  readonly evidence: Evidence[];
  readonly requests: number;
}

/** Run discovery on `session`. */
export async function runSurvey(
  session: EngineSession,
  options: Omit<ProbeRunOptions, 'surface'> &
    Pick<SurveyOptions, 'offers' | 'only' | 'alsoConsumers'>,
): Promise<Survey> {
  let surveyed: Promise<SurfaceMap> | undefined;
  const stopAt = performance.now() + options.capMs - Math.min(MARGIN_MS, options.capMs / 10);
  const probe = defineProbe({
    id: SURVEY.id,
    title: 'Discovery',
    flaw: 'Discovery (never confirmed)',
    severity: 'low',
    rationale: 'Finds handles and flows by value.',
    references: [],
    maxCalls: surveyBudget(session.protocol, options),
    async run(ctx) {
      surveyed = survey(ctx, {
        stopAt,
        ...(options.offers === undefined ? {} : { offers: options.offers }),
        ...(options.only === undefined ? {} : { only: options.only }),
        ...(options.alsoConsumers === undefined ? {} : { alsoConsumers: options.alsoConsumers }),
      });
      await surveyed;
      return skipped('discovery gives no verdict');
    },
  });
  const lacking = new Set<string>();
  const result = await runProbe(probe, session, {
    ...options,
    skipOnLacking: false,
    onLacking(names) {
      for (const name of names) lacking.add(name);
      options.onLacking?.(names);
    },
  });
  // A cap that cut a call in flight ends the runner's wait, not the survey: it still returns what it
  // found and names what it did not reach, a few turns later. Its map is taken from that return,
  // never from whichever of the two settled first.
  let map =
    (surveyed === undefined ? undefined : await settledWithin(surveyed, RETURN_MS)) ??
    EMPTY_SURFACE;
  if (lacking.size > 0) map = { ...map, lacking: [...lacking] };
  if (result.verdict === 'errored') {
    // Cut short (time cap, a thrown error): what it did not reach proves nothing.
    const said = result.reason.startsWith('did not finish')
      ? `discovery ${result.reason}`
      : `discovery did not finish: ${result.reason}`;
    map = { ...map, failures: [...map.failures, said] };
  }
  return { map, evidence: result.evidence, requests: result.requests ?? 0 };
}

/**
 * What `promise` resolves with, if it settles within `ms`; undefined if it rejects (the runner
 * reported the throw) or is still pending then.
 */
async function settledWithin<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const waited = new Promise<undefined>(
    (resolve) => (timer = setTimeout(() => resolve(undefined), ms)),
  );
  const settled = promise.then(
    (value) => value,
    () => undefined,
  );
  try {
    return await Promise.race([settled, waited]);
  } finally {
    clearTimeout(timer);
  }
}
