/**
 * Golden files: one fixed RunReport rendered in every format must match `test/golden/` byte for
 * byte. A change to a reporter shows up as a diff of its golden file; regenerate them on purpose
 * with `UPDATE_GOLDEN=1 npx vitest run test/report/golden.test.ts` and review the diff. That run
 * reports each case as skipped ("updated" or "unchanged"), never as passed: it compared nothing.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { REPORTERS, type ReportFormat } from '../../src/report/index.js';
import type { RenderOptions } from '../../src/report/types.js';
import type { RunReport } from '../../src/probe/types.js';
import { baselinedReport, report } from './sample-report.js';
import { combined } from './sample-combined.js';

const GOLDEN = (name: string): string =>
  fileURLToPath(new URL(`../golden/${name}`, import.meta.url));

const CASES: [file: string, format: ReportFormat, options: RenderOptions, source?: RunReport][] = [
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
];

/** The combined report (`--config`) of every format that has one. */
const COMBINED: [file: string, format: ReportFormat][] = [
  ['combined.txt', 'text'],
  ['combined.json', 'json'],
  ['combined.junit.xml', 'junit'],
  ['combined.md', 'markdown'],
];

/** Compares `rendered` with the golden `file`, or (with UPDATE_GOLDEN=1) writes it and skips. */
function golden(file: string, rendered: string, ctx: { skip(note: string): void }): void {
  if (process.env.UPDATE_GOLDEN === '1') {
    const before = existsSync(GOLDEN(file)) ? readFileSync(GOLDEN(file), 'utf8') : undefined;
    if (before !== rendered) writeFileSync(GOLDEN(file), rendered);
    // A file compared with what was just written to it proves nothing: say what happened instead.
    ctx.skip(
      before === rendered ? `UPDATE_GOLDEN: ${file} unchanged` : `UPDATE_GOLDEN: ${file} updated`,
    );
    return;
  }
  expect(rendered).toBe(readFileSync(GOLDEN(file), 'utf8'));
}

describe('every combined reporter against its golden file', () => {
  it.for(COMBINED)(
    '%s is what the %s reporter renders for several servers',
    ([file, format], ctx) => {
      const render = REPORTERS[format].renderCombined;
      if (render === undefined) throw new Error(`${format} has no renderCombined`);
      golden(file, render(combined, { color: false, evidence: 'summary' }), ctx);
    },
  );
});

describe('every reporter against its golden file', () => {
  it.for(CASES)('%s is what the %s reporter renders', ([file, format, options, source], ctx) => {
    golden(file, REPORTERS[format].render(source ?? report, options), ctx);
  });
});
