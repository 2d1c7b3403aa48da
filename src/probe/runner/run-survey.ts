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
  let map: SurfaceMap = EMPTY_SURFACE;
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
      map = await survey(ctx, {
        stopAt,
        ...(options.offers === undefined ? {} : { offers: options.offers }),
        ...(options.only === undefined ? {} : { only: options.only }),
        ...(options.alsoConsumers === undefined ? {} : { alsoConsumers: options.alsoConsumers }),
      });
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
