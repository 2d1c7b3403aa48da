/**
 * The reporters, as a registry map: adding a format is one entry, never another branch.
 */
import { certXGen } from './cert-x-gen.js';
import { html } from './html.js';
import { json } from './json.js';
import { junit } from './junit.js';
import { markdown } from './markdown.js';
import { sarif } from './sarif.js';
import { text } from './text.js';
import type { Reporter } from './types.js';

/** Every output format by id. */
export const REPORTERS = {
  text,
  json,
  sarif,
  junit,
  markdown,
  html,
  'cert-x-gen': certXGen,
} satisfies Record<string, Reporter>;

/** A format id. */
export type ReportFormat = keyof typeof REPORTERS;

/** The format ids, for help text and validation. */
export const REPORT_FORMATS = Object.keys(REPORTERS) as ReportFormat[];

/** The formats with a report of several servers (`--config`). */
export const COMBINED_FORMATS: ReportFormat[] = REPORT_FORMATS.filter(
  (id) => (REPORTERS[id] as Reporter).renderCombined !== undefined,
);

/** True when `id` names a format. */
export function isReportFormat(id: string): id is ReportFormat {
  return Object.hasOwn(REPORTERS, id);
}

export type { Reporter, RenderOptions, EvidenceMode } from './types.js';
export { EVIDENCE_MODES } from './types.js';
