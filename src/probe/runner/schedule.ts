/**
 * Which probes may run side by side. Every probe drives flows of its own (it mints its own handles
 * and asks its own round 1), so most cannot interfere; what they can share is declared on the probe
 * (`Probe.touches`) and decides the plan:
 *
 * - `sessions`: the probe opens or ends sessions of the identities, which every other probe runs
 *   in. On a server with sessions (the legacy era) it runs alone, after the others, in registry
 *   order; a 2026-07-28 server has none, and the key is ignored.
 * - any other key (`task-ids`, `waits`): the probes that name it form one lane and run one after
 *   another, in registry order; the lane runs beside the others.
 *
 * A serial plan (`--serial`) is one lane of every probe in registry order: the order of a scan
 * before the runner ran probes side by side, kept for debugging and for the comparison that
 * shows both plans give the same verdicts.
 */
import type { Probe, Touch } from '../model/probe.js';

/** Lanes run side by side, each lane's probes one after another; then the solo probes, alone. */
export interface Plan {
  readonly lanes: readonly (readonly Probe[])[];
  readonly solo: readonly Probe[];
}

/** What makes a probe run alone rather than in a lane. */
const ALONE: Touch = 'sessions';

/** The plan for `probes` (in registry order); `sessions` says whether the target keeps sessions. */
export function planProbes(
  probes: readonly Probe[],
  o: { readonly serial: boolean; readonly sessions: boolean },
): Plan {
  if (o.serial) return { lanes: probes.length > 0 ? [[...probes]] : [], solo: [] };
  const solo = o.sessions ? probes.filter((p) => p.touches?.includes(ALONE) === true) : [];
  const lanes: Probe[][] = [];
  const laneOf = new Map<Touch, Probe[]>();
  for (const probe of probes) {
    if (solo.includes(probe)) continue;
    // A probe that shares with a lane joins it (the first key that has one); else it opens one.
    const keys = (probe.touches ?? []).filter((t) => t !== ALONE);
    const shared = keys.map((t) => laneOf.get(t)).find((l) => l !== undefined);
    const lane = shared ?? [];
    if (shared === undefined) lanes.push(lane);
    lane.push(probe);
    for (const t of keys) if (!laneOf.has(t)) laneOf.set(t, lane);
  }
  return { lanes, solo };
}

/**
 * Runs each lane's items one after another, at most `width` lanes at a time, and resolves once all
 * are done. `run` must not throw (the probe runner never does).
 */
export async function runLanes<T>(
  lanes: readonly (readonly T[])[],
  width: number,
  run: (item: T, lane: readonly T[], index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < lanes.length) {
      const lane = lanes[next++]!;
      for (const [index, item] of lane.entries()) await run(item, lane, index);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(width, lanes.length)) }, worker));
}
