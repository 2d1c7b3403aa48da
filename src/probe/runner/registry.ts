/**
 * The explicit list of probes: one import per probe, no file-system globbing, so the set of checks a
 * release runs is visible in one place and cannot change by a stray file.
 */
import type { Probe } from '../model/probe.js';
import handleCrossPrincipal from '../probes/handle/cross-principal.js';
import sessionCrossPrincipal from '../probes/session/cross-principal.js';
import stateCrossInstance from '../probes/state/cross-instance.js';
import stateErrorOracle from '../probes/state/error-oracle.js';
import stateExpiry from '../probes/state/expiry.js';
import stateReplayAfterCompletion from '../probes/state/replay-after-completion.js';
import stateReplayPrincipal from '../probes/state/replay-principal.js';
import stateReplayRequest from '../probes/state/replay-request.js';
import stateTamper from '../probes/state/tamper.js';
import taskCrossPrincipal from '../probes/handle/task-cross-principal.js';
import taskGuessable from '../probes/handle/task-guessable.js';
import transportOrigin from '../probes/transport/origin.js';

/** Every probe, in the order a scan runs them. */
export const PROBES: readonly Probe[] = [
  handleCrossPrincipal,
  taskCrossPrincipal,
  taskGuessable,
  stateTamper,
  stateReplayPrincipal,
  stateReplayRequest,
  stateReplayAfterCompletion,
  stateErrorOracle,
  stateExpiry,
  stateCrossInstance,
  // Before transport/origin, whose initialize requests open sessions of their own: this probe
  // tests the only-session fallback once it has ended B's, with A's the only one the scan opened.
  sessionCrossPrincipal,
  transportOrigin,
];

/** The probe with this id, or undefined. */
export function findProbe(id: string): Probe | undefined {
  return PROBES.find((p) => p.id === id);
}

/** The probes with these ids (each one a probe has: see probe-ids.ts), in the order given. */
export function probesById(ids: readonly string[]): Probe[] {
  return ids.map((id) => {
    const probe = findProbe(id);
    if (!probe) throw new Error(`no probe '${id}'`);
    return probe;
  });
}
