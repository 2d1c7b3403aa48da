/**
 * What a result is titled by in every report: a confirmed result by the flaw it found ("A changed
 * requestState is honoured"), any other by the property asked about ("A changed requestState is
 * refused"), so that a finding never reads as the opposite of what was shown.
 */
import type { ProbeResult } from '../probe/types.js';

/** The title of `r` in a report. */
export const headline = (r: Pick<ProbeResult, 'verdict' | 'title' | 'flaw'>): string =>
  r.verdict === 'confirmed' ? r.flaw : r.title;
