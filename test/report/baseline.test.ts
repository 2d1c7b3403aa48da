/**
 * Every reporter with a baseline: an accepted result stays `confirmed` but is marked as accepted in
 * each format's own vocabulary, a stale entry is shown as failing the run, and a report without a
 * baseline carries none of it.
 */
import { describe, expect, it } from 'vitest';
import type { RunReport } from '../../src/probe/model/report.js';
import { REPORTERS } from '../../src/report/index.js';
import { summaryLine } from '../../src/report/text.js';
import { toSarif } from '../../src/report/sarif.js';
import { baselinedReport, report } from './sample-report.js';
import { sarifProblems } from './sarif-structure.js';

const sarifOf = (r: RunReport, all: boolean) =>
  JSON.parse(JSON.stringify(toSarif(r, { color: false, evidence: 'none', all }))) as Record<
    string,
    any // eslint-disable-line @typescript-eslint/no-explicit-any -- a parsed log, walked by the test
  >;
const junitOf = (r: RunReport) => REPORTERS.junit.render(r, { color: false, evidence: 'summary' });
const caseOf = (xml: string, name: string): string =>
  new RegExp(`<testcase [^>]*name="${name}"[^>]*>([\\s\\S]*?)</testcase>`).exec(xml)?.[1] ?? '';

describe('the text reporter with a baseline', () => {
  const plain = REPORTERS.text.render(baselinedReport, { color: false, evidence: 'summary' });

  it('shows (baselined) next to an accepted result, which stays CONFIRMED', () => {
    expect(plain).toContain(
      '✗ CONFIRMED state/tamper (baselined)  Tampered requestState is accepted: altered requestState was accepted',
    );
    expect(plain.match(/\(baselined\)/g)).toHaveLength(1);
    expect(REPORTERS.text.render(report, { color: false, evidence: 'summary' })).not.toContain(
      'baselined',
    );
  });

  it('lists each stale entry and counts baselined results and stale entries in the summary', () => {
    expect(plain).toContain(
      '✗ STALE     baseline entry state/replay-request@stdio:./server.js: its probe is now refuted on this target; remove it from stateguard.baseline',
    );
    expect(summaryLine(baselinedReport)).toBe(
      '1 confirmed (1 baselined) · 1 refuted · 1 skipped · 1 errored · 1 stale baseline entry (target: stdio:./server.js)',
    );
    const twoStale: RunReport = {
      ...baselinedReport,
      baseline: {
        file: 'b',
        baselined: [],
        stale: ['state/tamper', 'state/replay-request'],
        unmatched: [],
      },
    };
    expect(summaryLine(twoStale)).toContain(' · 2 stale baseline entries (target:');
  });
});

describe('the SARIF reporter with a baseline', () => {
  it('stays structurally valid, with baselineState and suppressions on every result or none', () => {
    for (const all of [false, true]) {
      expect(sarifProblems(sarifOf(baselinedReport, all))).toEqual([]);
      const plain = sarifOf(report, all).runs[0].results as Record<string, unknown>[];
      for (const r of plain) {
        expect(r).not.toHaveProperty('baselineState');
        expect(r).not.toHaveProperty('suppressions');
      }
    }
  });

  it('marks an accepted result unchanged with an accepted external suppression, others new, a stale one absent', () => {
    const results = sarifOf(baselinedReport, true).runs[0].results as {
      ruleId: string;
      kind: string;
      level: string;
      baselineState: string;
      suppressions: unknown[];
    }[];
    const byRule = Object.fromEntries(results.map((r) => [r.ruleId, r]));
    expect(byRule['state/tamper']).toMatchObject({
      kind: 'fail',
      level: 'error',
      baselineState: 'unchanged',
      suppressions: [
        {
          kind: 'external',
          status: 'accepted',
          justification: 'accepted in the baseline file stateguard.baseline',
        },
      ],
    });
    expect(byRule['state/replay-request']).toMatchObject({
      kind: 'pass',
      baselineState: 'absent',
      suppressions: [],
    });
    expect(byRule['handle/cross-principal']).toMatchObject({
      baselineState: 'new',
      suppressions: [],
    });
    expect(byRule['state/replay-principal']).toMatchObject({
      baselineState: 'new',
      suppressions: [],
    });
  });

  it('names a stale entry in an error notification without calling the execution unsuccessful', () => {
    const noErrors: RunReport = {
      ...baselinedReport,
      probes: baselinedReport.probes.filter((p) => p.verdict !== 'errored'),
    };
    const run = sarifOf(noErrors, false).runs[0];
    expect(run.invocations[0].executionSuccessful).toBe(true);
    expect(run.invocations[0].toolExecutionNotifications).toEqual([
      {
        level: 'error',
        message: {
          text: 'stale baseline entry state/replay-request@stdio:./server.js: its probe is now refuted on this target',
        },
        associatedRule: { id: 'state/replay-request', index: 1 },
      },
    ]);
    expect(run.properties.baseline).toEqual(baselinedReport.baseline);
    expect(sarifOf(report, false).runs[0].properties).not.toHaveProperty('baseline');
  });

  it('is caught by the structure check when only some results carry baseline fields', () => {
    const log = sarifOf(baselinedReport, false);
    delete log.runs[0].results[1].baselineState;
    log.runs[0].results[1].suppressions = null;
    log.runs[0].results[0].suppressions[0].kind = 'yaml';
    expect(sarifProblems(log)).toEqual([
      'runs[0].results[0].suppressions[0].kind is required',
      'runs[0]: baselineState on 1 of 2 results (all or none)',
      'runs[0]: suppressions on 1 of 2 results (all or none)',
    ]);
  });
});

describe('the JUnit reporter with a baseline', () => {
  it('reports an accepted result as skipped with message "baselined", its details kept', () => {
    const tamper = caseOf(junitOf(baselinedReport), 'state/tamper');
    expect(tamper).toMatch(/^\s*<skipped message="baselined"\/>\s*<system-out>confirmed: altered/);
    expect(tamper).not.toContain('<failure');
  });

  it('adds a failing testcase per stale entry and totals that count what fails the run', () => {
    const xml = junitOf(baselinedReport);
    expect(caseOf(xml, 'state/replay-request@stdio:./server.js')).toMatch(
      /^\s*<failure message="stale baseline entry: its probe is now refuted on this target" type="stale-baseline">/,
    );
    expect(xml).toContain('classname="stateguard.baseline"');
    expect(xml).toContain(
      '<testsuites name="stateguard" tests="5" failures="1" errors="1" skipped="2"',
    );
    expect(xml).toContain('<property name="baseline" value="stateguard.baseline"/>');
    expect(junitOf(report)).toContain('tests="4" failures="1" errors="1" skipped="1"');
  });
});
