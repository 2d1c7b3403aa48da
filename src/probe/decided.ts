/**
 * Whether a scan decided anything. A probe decides when it ends `confirmed` or `refuted`; one that
 * ends `skipped` (the surface is absent) or `errored` (a control failed, the target did not answer)
 * says nothing about the server. A run in which no probe decided proves nothing, whatever its other
 * counts, so CI must not read it as a pass (`stateguard scan` exits 4 unless `--allow-undecided`).
 */
import type { ProbeResult, RunReport } from './types.js';

/** True when `r` decided nothing: `skipped` or `errored`. */
export const undecided = (r: Pick<ProbeResult, 'verdict'>): boolean =>
  r.verdict === 'skipped' || r.verdict === 'errored';

/** How many of `probes` decided nothing. */
export const undecidedCount = (probes: readonly Pick<ProbeResult, 'verdict'>[]): number =>
  probes.filter(undecided).length;

/** True when no probe of the run decided anything (none ran, or each was skipped or errored). */
export const nothingDecided = (report: Pick<RunReport, 'probes'>): boolean =>
  report.probes.every(undecided);
