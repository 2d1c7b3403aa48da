/**
 * The SARIF reporter: a structurally valid SARIF 2.1.0 log (checked field by field against the
 * spec's requirements), rules from the report's own rules once per id, and results by verdict.
 */
import { describe, expect, it } from 'vitest';
import { PROBES } from '../../src/probe/runner/registry.js';
import type { RunReport } from '../../src/probe/model/report.js';
import { SARIF_SCHEMA, toSarif } from '../../src/report/sarif.js';
import { report } from './sample-report.js';
import { sarifProblems } from './sarif-structure.js';

const render = (r: RunReport, all = false) =>
  JSON.parse(JSON.stringify(toSarif(r, { color: false, evidence: 'summary', all }))) as Record<
    string,
    any // eslint-disable-line @typescript-eslint/no-explicit-any -- a parsed log, walked by the test
  >;

describe('the SARIF reporter', () => {
  it('writes a structurally valid SARIF 2.1.0 log, with and without --all', () => {
    for (const all of [false, true]) {
      const log = render(report, all);
      expect(log.$schema).toBe(SARIF_SCHEMA);
      expect(log.version).toBe('2.1.0');
      expect(sarifProblems(log)).toEqual([]);
    }
  });

  it('renders a rule from the rule the report carries, never from the registry', () => {
    const tamper = report.rules?.find((r) => r.id === 'state/tamper');
    expect(tamper).toBeDefined();
    const carried: RunReport = {
      ...report,
      rules: [
        {
          ...tamper!,
          title: 'Title carried in the report',
          severity: 'low',
          rationale: 'Rationale carried in the report.\n\nSecond paragraph.',
          references: [{ id: 'carried', url: 'https://example.invalid/carried' }],
        },
      ],
    };
    const rule = (
      render(carried).runs[0].tool.driver.rules as { id: string; [k: string]: unknown }[]
    ).find((r) => r.id === 'state/tamper');
    expect(rule).toMatchObject({
      shortDescription: { text: 'Title carried in the report' },
      fullDescription: { text: 'Rationale carried in the report.' },
      help: { text: 'Rationale carried in the report.\n\nSecond paragraph.' },
      helpUri: 'https://example.invalid/carried',
      defaultConfiguration: { level: 'note' },
    });
    // A report with no rules (made before reports carried them) has each rule from its result.
    const { rules: _rules, ...bare } = report;
    const fromResult = (
      render(bare).runs[0].tool.driver.rules as { id: string; [k: string]: unknown }[]
    ).find((r) => r.id === 'state/tamper');
    expect(fromResult).toMatchObject({
      shortDescription: { text: report.probes[0]!.title },
      help: { text: report.probes[0]!.title },
    });
  });

  it('takes its rules from the report, once per id, even when a probe ran twice', () => {
    const twice: RunReport = { ...report, probes: [...report.probes, report.probes[0]!] };
    const rules = render(twice).runs[0].tool.driver.rules as {
      id: string;
      help: { text: string };
    }[];
    expect(rules.map((r) => r.id)).toEqual([...new Set(report.probes.map((p) => p.id))]);
    for (const rule of rules) {
      expect(rule.help.text).toBe(PROBES.find((p) => p.id === rule.id)?.rationale);
    }
  });

  it('emits confirmed as kind fail with the level of its severity, errored as kind open and a notification', () => {
    const run = render(report).runs[0];
    const byRule = Object.fromEntries(
      (run.results as { ruleId: string }[]).map((r) => [r.ruleId, r]),
    );
    expect(Object.keys(byRule).sort()).toEqual(['state/replay-principal', 'state/tamper']);
    expect(byRule['state/tamper']).toMatchObject({ kind: 'fail', level: 'error' });
    expect(byRule['state/replay-principal']).toMatchObject({ kind: 'open', level: 'none' });
    const invocation = run.invocations[0];
    expect(invocation.executionSuccessful).toBe(false);
    expect(invocation.toolExecutionNotifications).toEqual([
      {
        level: 'error',
        message: { text: 'state/replay-principal errored: control bOwnFlowAccepted did not hold' },
        associatedRule: { id: 'state/replay-principal', index: 3 },
      },
    ]);
  });

  it.each([
    ['critical', 'error', '9.5'],
    ['high', 'error', '8.0'],
    ['medium', 'warning', '5.5'],
    ['low', 'note', '3.0'],
  ] as const)(
    'maps a confirmed %s finding to level %s and security-severity %s, on the result and its rule',
    (severity, level, securitySeverity) => {
      // The sample report's findings are all `high`: a probe unknown to the registry takes its rule
      // from the result, so every severity can be pinned here.
      const confirmed = { ...report.probes[0]!, id: 'custom/finding', severity };
      const run = render({ ...report, probes: [confirmed] }).runs[0];
      expect(run.results[0]).toMatchObject({ ruleId: 'custom/finding', kind: 'fail', level });
      expect(run.tool.driver.rules[0]).toMatchObject({
        defaultConfiguration: { level },
        properties: { 'security-severity': securitySeverity },
      });
    },
  );

  it('adds refuted as kind pass and skipped as kind notApplicable only with --all', () => {
    const kinds = (all: boolean) =>
      Object.fromEntries(
        (render(report, all).runs[0].results as { ruleId: string; kind: string }[]).map((r) => [
          r.ruleId,
          r.kind,
        ]),
      );
    expect(kinds(false)).not.toHaveProperty('state/replay-request');
    expect(kinds(true)).toEqual({
      'state/tamper': 'fail',
      'state/replay-request': 'pass',
      'handle/cross-principal': 'notApplicable',
      'state/replay-principal': 'open',
    });
  });

  it('names a target problem in a notification and marks the run unsuccessful', () => {
    const problem: RunReport = {
      ...report,
      problem: 'the target did not answer',
      probes: report.probes.map((p) => ({ ...p, verdict: 'refuted' as const })),
    };
    const invocation = render(problem).runs[0].invocations[0];
    expect(invocation.executionSuccessful).toBe(false);
    expect(invocation.toolExecutionNotifications[0].message.text).toContain(
      'the target did not answer',
    );
    const clean: RunReport = { ...problem, problem: undefined } as unknown as RunReport;
    delete (clean as { problem?: string }).problem;
    expect(render(clean).runs[0].invocations[0].executionSuccessful).toBe(true);
    expect(render(clean).runs[0].results).toEqual([]);
  });

  it('gives each result a fingerprint stable for its probe and target, and evidence as asked', () => {
    const first = render(report).runs[0].results[0];
    const again = render(report).runs[0].results[0];
    expect(first.partialFingerprints).toEqual(again.partialFingerprints);
    const other = render({ ...report, target: { kind: 'http', display: 'http://x/mcp' } });
    expect(other.runs[0].results[0].partialFingerprints).not.toEqual(first.partialFingerprints);
    expect(first.properties.evidence[0]).toMatch(/^\[A\] tools\/call transfer/);
    const none = toSarif(report, { color: false, evidence: 'none' }).runs[0]?.results?.[0];
    expect(none?.properties).not.toHaveProperty('evidence');
  });

  it('is caught by the structure check when a required field is missing or contradicts another', () => {
    const log = render(report);
    log.runs[0].results[1].level = 'error';
    delete log.runs[0].invocations[0].executionSuccessful;
    log.runs[0].results[0].ruleIndex = 2;
    expect(sarifProblems(log)).toEqual([
      'runs[0].results[0].ruleIndex 2 names rule handle/cross-principal, not state/tamper',
      'runs[0].results[1]: level error with kind open (must be none)',
      'runs[0].invocations[0].executionSuccessful must be a boolean',
    ]);
  });
});
