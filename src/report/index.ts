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
import type { ReportFormat } from './formats.js';

/** Every output format by id: each of formats.ts's ids, and no other. */
export const REPORTERS = {
  text,
  json,
  sarif,
  junit,
  markdown,
  html,
  'cert-x-gen': certXGen,
} satisfies Record<ReportFormat, Reporter>;

export { COMBINED_FORMATS, isReportFormat, REPORT_FORMATS } from './formats.js';
export type { ReportFormat } from './formats.js';

export type { Reporter, RenderOptions, EvidenceMode } from './types.js';
export { EVIDENCE_MODES } from './types.js';
