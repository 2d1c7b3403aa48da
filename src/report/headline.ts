/**
 * What a result is titled by in every report: a confirmed result by the flaw it found ("A changed
 * requestState is honoured"), any other by the property asked about ("A changed requestState is
 * refused"), so that a finding never reads as the opposite of what was shown.
 */
import type { ProbeResult } from '../probe/model/report.js';

/** The title of `r` in a report. */
export const headline = (r: Pick<ProbeResult, 'verdict' | 'title' | 'flaw'>): string =>
  r.verdict === 'confirmed' ? r.flaw : r.title;

/** What a result whose reason is the run's target problem says instead, the problem said once. */
export const TARGET_PROBLEM_REASON = 'not decided: the target problem above';

/** True when `r` ended on the run's target problem (unreachable, missing command, mute). */
export const onTargetProblem = (
  report: { readonly problem?: string },
  r: Pick<ProbeResult, 'reason'>,
): boolean => report.problem !== undefined && r.reason === report.problem;

/** The reason shown for `r`: the target problem is said once, above the probes. */
export const shownReason = (
  report: { readonly problem?: string },
  r: Pick<ProbeResult, 'reason'>,
): string => (onTargetProblem(report, r) ? TARGET_PROBLEM_REASON : r.reason);
