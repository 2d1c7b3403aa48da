/**
 * The report formats by id, without their reporters: what argument parsing and help text need. A
 * usage error or `--help` then loads no reporter; `index.ts` maps each id to its reporter (its type
 * holds the two to the same ids, and test/report/reporters.test.ts holds {@link COMBINED_FORMATS}
 * to the reporters that render several servers).
 */

/** The format ids, for help text and validation, in the order help lists them. */
export const REPORT_FORMATS = [
  'text',
  'json',
  'sarif',
  'junit',
  'markdown',
  'html',
  'cert-x-gen',
] as const;

/** A format id. */
export type ReportFormat = (typeof REPORT_FORMATS)[number];

/**
 * The formats with a report of several servers (`--config`, a registry): all but `cert-x-gen`,
 * one server's document for the engine that runs it.
 */
export const COMBINED_FORMATS: readonly ReportFormat[] = REPORT_FORMATS.filter(
  (id) => id !== 'cert-x-gen',
);

/** True when `id` names a format. */
export function isReportFormat(id: string): id is ReportFormat {
  return (REPORT_FORMATS as readonly string[]).includes(id);
}

export { EVIDENCE_MODES } from './types.js';
export type { EvidenceMode } from './types.js';
