/**
 * Whether a scan decided anything. A probe decides when it ends `confirmed` or `refuted`; one that
 * ends `skipped` (the surface is absent) or `errored` (a control failed, the target did not answer)
 * says nothing about the server. A run in which no probe decided proves nothing, whatever its other
 * counts, so CI must not read it as a pass (`stateguard scan` exits 4 unless `--allow-undecided`).
 *
 * A probe whose surface may exist but was left alone by the call plan (its flow or consumer behind a
 * tool that writes, spends or deletes) is *undecided* even when others decided: it carries the flags
 * that would let it decide (`decideWith`), and the run exits 5 unless `--allow-undecided`.
 */
import type { ProbeResult, RunReport } from '../model/report.js';

/** True when `r` decided nothing: `skipped` or `errored`. */
export const undecided = (r: Pick<ProbeResult, 'verdict'>): boolean =>
  r.verdict === 'skipped' || r.verdict === 'errored';

/** How many of `probes` decided nothing. */
export const undecidedCount = (probes: readonly Pick<ProbeResult, 'verdict'>[]): number =>
  probes.filter(undecided).length;

/** True when no probe of the run decided anything (none ran, or each was skipped or errored). */
export const nothingDecided = (report: Pick<RunReport, 'probes'>): boolean =>
  report.probes.every(undecided);

/** The results that could have decided with the user's word: each names the flags that would. */
export const undecidedSurface = (report: Pick<RunReport, 'probes'>): ProbeResult[] =>
  report.probes.filter((p) => p.verdict === 'skipped' && (p.decideWith?.length ?? 0) > 0);

/** The flags that would let every undecided probe decide, each once, in order. */
export const decidingFlags = (report: Pick<RunReport, 'probes'>): string[] => [
  ...new Set(undecidedSurface(report).flatMap((p) => p.decideWith ?? [])),
];

/**
 * `2 undecided (--allow-tool refund_order would decide them)`, or undefined when no probe is. A
 * long list of flags is cut after three, with `--include-destructive` named for all of them.
 */
export function undecidedClause(report: Pick<RunReport, 'probes'>): string | undefined {
  const n = undecidedSurface(report).length;
  if (n === 0) return undefined;
  const flags = decidingFlags(report);
  const named =
    flags.length <= 3
      ? flags.join(' or ')
      : `${flags.slice(0, 3).join(', ')} (…) or --include-destructive`;
  return `${n} undecided (${named} would decide ${n === 1 ? 'it' : 'them'})`;
}
