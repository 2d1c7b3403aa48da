/**
 * The golden files: each file under `test/golden/`, the format and options that render it, and the
 * report it renders (the sample report unless named). golden.test.ts compares them byte for byte;
 * the SARIF validation tests read the SARIF ones.
 */
import { REPORTERS, type ReportFormat } from '../../src/report/index.js';
import type { RenderOptions } from '../../src/report/types.js';
import type { CombinedReport, RunReport } from '../../src/probe/model/report.js';
import { combined } from './sample-combined.js';
import {
  baselinedReport,
  combinedReport,
  plannedReport,
  severitiesReport,
} from './sample-report.js';

type Source = RunReport | CombinedReport;

/** Every golden file, the format that renders it, its options and its report. */
export const CASES: [
  file: string,
  format: ReportFormat,
  options: RenderOptions,
  source?: Source,
][] = [
  ['report.txt', 'text', { color: false, evidence: 'summary' }],
  ['report.json', 'json', { color: false, evidence: 'summary' }],
  ['report.sarif', 'sarif', { color: false, evidence: 'summary' }],
  ['report-all.sarif', 'sarif', { color: false, evidence: 'summary', all: true }],
  ['report.junit.xml', 'junit', { color: false, evidence: 'summary' }],
  ['report.md', 'markdown', { color: false, evidence: 'summary' }],
  // With a baseline: one confirmed result accepted, one stale entry.
  ['report-baseline.txt', 'text', { color: false, evidence: 'summary' }, baselinedReport],
  [
    'report-baseline-all.sarif',
    'sarif',
    { color: false, evidence: 'summary', all: true },
    baselinedReport,
  ],
  ['report-baseline.junit.xml', 'junit', { color: false, evidence: 'summary' }, baselinedReport],
  ['report-baseline.md', 'markdown', { color: false, evidence: 'summary' }, baselinedReport],
  ['report.html', 'html', { color: false, evidence: 'summary' }],
  ['report-baseline.html', 'html', { color: false, evidence: 'summary' }, baselinedReport],
  // Confirmed findings of every severity the registry uses: each level and security-severity.
  ['report-severities.sarif', 'sarif', { color: false, evidence: 'summary' }, severitiesReport],
  // Three servers from two configuration files, one of them outside the repository.
  ['report-combined.sarif', 'sarif', { color: false, evidence: 'summary' }, combinedReport],
  ['report-combined.html', 'html', { color: false, evidence: 'summary' }, combinedReport],
  // With a call plan: every class, kind and grant; `uncalled` folded into the plan.
  ['report-plan.txt', 'text', { color: false, evidence: 'summary' }, plannedReport],
  ['report-plan-all.txt', 'text', { color: false, evidence: 'summary', all: true }, plannedReport],
  ['report-plan.json', 'json', { color: false, evidence: 'summary' }, plannedReport],
  ['report-plan.sarif', 'sarif', { color: false, evidence: 'summary' }, plannedReport],
  ['report-plan.junit.xml', 'junit', { color: false, evidence: 'summary' }, plannedReport],
  ['report-plan.md', 'markdown', { color: false, evidence: 'summary' }, plannedReport],
  ['report-plan.html', 'html', { color: false, evidence: 'summary' }, plannedReport],
  // Four configured servers: scanned, baselined, not started (a placeholder), SSE-only.
  ['combined.txt', 'text', { color: false, evidence: 'summary' }, combined],
  ['combined.json', 'json', { color: false, evidence: 'summary' }, combined],
  ['combined.junit.xml', 'junit', { color: false, evidence: 'summary' }, combined],
  ['combined.md', 'markdown', { color: false, evidence: 'summary' }, combined],
];

/** What `format` renders of `source`: a combined report through `renderCombined`. */
export function renderGolden(format: ReportFormat, options: RenderOptions, source: Source): string {
  const reporter = REPORTERS[format];
  if (!('kind' in source)) return reporter.render(source, options);
  if (reporter.renderCombined === undefined)
    throw new Error(`${format} renders no combined report`);
  return reporter.renderCombined(source, options);
}
