/**
 * JUnit XML: one `<testcase>` per probe, for CI systems that chart test results. A `confirmed`
 * probe is a `<failure>`, an `errored` one an `<error>` (an unfinished check, never a pass), a
 * `skipped` one `<skipped>`; a `refuted` one passes, its controls in `<system-out>`, because a
 * refutation is only as good as the controls that held while it was drawn.
 *
 * With `--baseline`, a `confirmed` probe the baseline accepts is `<skipped message="baselined">`
 * (its details still in `<system-out>`), and each stale entry is a failing testcase of its own in
 * `stateguard.baseline`: the failures then count exactly what makes the run exit 1.
 */
import { createdItem, createdSentence } from './created.js';
import { undecidedCount } from '../probe/runner/decided.js';
import { STALE_REASON } from '../probe/runner/baseline.js';
import type {
  BaselineSummary,
  CombinedReport,
  ProbeResult,
  RunReport,
} from '../probe/model/report.js';
import type { CallPlan } from '../probe/model/tools.js';
import type { Verdict } from '../probe/model/probe.js';
import { notScannedReasons, registryLine } from './matrix.js';
import { detailLines } from './evidence-lines.js';
import { leftAloneLine, PLAN_ELSEWHERE, planCounts, planGroups } from './plan.js';
import type { RenderOptions, Reporter } from './types.js';
import { escapeXmlText, visibleLine } from './visible.js';

// Characters XML 1.0 cannot carry at all, even escaped: replaced, so a hostile answer quoted in the
// evidence cannot make the report unparseable.
const NOT_XML = /[^\t\n\r\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

/** Text safe inside an XML element. */
export function xmlText(s: string): string {
  return s
    .replace(NOT_XML, '\uFFFD')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/\r/g, '&#13;');
}

/** Text safe inside a double-quoted XML attribute (line breaks kept as character references). */
export function xmlAttr(s: string): string {
  return xmlText(s).replace(/"/g, '&quot;').replace(/\n/g, '&#10;').replace(/\t/g, '&#9;');
}

const seconds = (ms: number): string => (ms / 1000).toFixed(3);

const ELEMENT: Partial<Record<Verdict, 'failure' | 'error'>> = {
  confirmed: 'failure',
  errored: 'error',
};

function testcase(r: ProbeResult, options: RenderOptions): string[] {
  const open = `    <testcase classname="stateguard.${xmlAttr(r.id.split('/')[0] ?? r.id)}" name="${xmlAttr(r.id)}" time="${seconds(r.ms)}">`;
  const details = xmlText(
    [`${r.verdict}: ${r.reason}`, ...detailLines(r, options.evidence)].join('\n'),
  );
  if (r.baselined === true) {
    return [
      open,
      '      <skipped message="baselined"/>',
      `      <system-out>${details}</system-out>`,
      '    </testcase>',
    ];
  }
  const element = ELEMENT[r.verdict];
  if (element !== undefined) {
    const attrs = `message="${xmlAttr(r.reason)}" type="${r.verdict}"`;
    return [open, `      <${element} ${attrs}>${details}</${element}>`, '    </testcase>'];
  }
  if (r.verdict === 'skipped') {
    return [open, `      <skipped message="${xmlAttr(r.reason)}"/>`, '    </testcase>'];
  }
  return [open, `      <system-out>${details}</system-out>`, '    </testcase>'];
}

function staleCase(entry: string, baseline: BaselineSummary): string[] {
  const message = `stale baseline entry: ${STALE_REASON}`;
  return [
    `    <testcase classname="stateguard.baseline" name="${xmlAttr(entry)}" time="0.000">`,
    `      <failure message="${xmlAttr(message)}" type="stale-baseline">${xmlText(`${message}; remove it from ${baseline.file}`)}</failure>`,
    '    </testcase>',
  ];
}

/** The totals attributes of a suite (or of all suites) from its testcases' outcomes. */
interface Totals {
  tests: number;
  failures: number;
  errors: number;
  skipped: number;
}

const totalsText = (t: Totals, ms: number): string =>
  `tests="${t.tests}" failures="${t.failures}" errors="${t.errors}" skipped="${t.skipped}" time="${seconds(ms)}"`;

/** Most `left alone` properties of one suite, and the widest name or evidence in one. */
const MAX_PLAN_PROPERTIES = 200;
const PLAN_TEXT = 300;

/**
 * The plan as suite properties: `call plan` with its counts, then one `left alone` per entry the
 * scan did not call (kind, name, class, deciding evidence, the flag that would call it), bounded.
 */
function planProperties(plan: CallPlan): [string, string][] {
  const { left } = planGroups(plan);
  const out: [string, string][] = [['call plan', planCounts(plan)]];
  for (const e of left.slice(0, MAX_PLAN_PROPERTIES))
    out.push(['left alone', leftAloneLine(e, PLAN_TEXT)]);
  if (left.length > MAX_PLAN_PROPERTIES)
    out.push([
      'left alone',
      `… ${left.length - MAX_PLAN_PROPERTIES} more, not listed: ${PLAN_ELSEWHERE}`,
    ]);
  return out;
}

/** One report as a `<testsuite>`, indented by two, and its totals. */
function suite(report: RunReport, options: RenderOptions): { lines: string[]; totals: Totals } {
  const count = (v: Verdict): number => report.probes.filter((p) => p.verdict === v).length;
  const accepted = report.probes.filter((p) => p.baselined === true).length;
  const { baseline, server } = report;
  const stale = baseline?.stale ?? [];
  // A server that never started is one testcase: an error, or skipped when left alone by design.
  const unstarted = report.probes.length === 0 && report.problem !== undefined;
  const notScanned = unstarted && report.problem?.startsWith('not scanned: ') === true;
  const totals: Totals = unstarted
    ? { tests: 1, failures: 0, errors: notScanned ? 0 : 1, skipped: notScanned ? 1 : 0 }
    : {
        tests: report.probes.length + stale.length,
        failures: count('confirmed') - accepted + stale.length,
        errors: count('errored'),
        skipped: count('skipped') + accepted,
      };
  const p = report.protocol;
  const properties: [string, string][] = [
    ...(server !== undefined
      ? ([
          ['server', server.name],
          ['config', `${server.file}:${server.line}`],
          ['config format', server.format],
        ] as [string, string][])
      : []),
    ['target', report.target.display],
    ['transport', report.target.kind],
    ['protocol', `${p.era}${p.protocolVersion ? ` ${p.protocolVersion}` : ''}`],
    ['stateguard', report.tool.version],
    ['undecided', String(undecidedCount(report.probes))],
    ...(report.problem !== undefined ? [['problem', report.problem] as [string, string]] : []),
    ...(baseline !== undefined ? [['baseline', baseline.file] as [string, string]] : []),
    // The plan says what was left alone; `uncalled` only for a report without one (an older file).
    ...(report.plan !== undefined
      ? planProperties(report.plan)
      : (report.uncalled ?? []).map(
          (u) => ['not called', `${u.tool}: ${u.why}`] as [string, string],
        )),
    // What this scan left on the target: the count in words, then each object.
    ...(report.created === undefined
      ? []
      : [
          ['created', createdSentence(report.created)] as [string, string],
          ...report.created.items.map((c) => ['created', createdItem(c)] as [string, string]),
        ]),
  ];
  const name =
    server !== undefined
      ? `stateguard scan ${server.name} (${report.target.display})`
      : `stateguard scan ${report.target.display}`;
  const start = (): string[] => {
    const problem = report.problem ?? '';
    const outcome = notScanned
      ? `      <skipped message="${xmlAttr(problem)}"/>`
      : `      <error message="${xmlAttr(problem)}" type="not-started">${xmlText(problem)}</error>`;
    return [
      `    <testcase classname="stateguard.server" name="start" time="0.000">`,
      outcome,
      '    </testcase>',
    ];
  };
  return {
    totals,
    lines: [
      `  <testsuite name="${xmlAttr(name)}" ${totalsText(totals, report.ms)} timestamp="${xmlAttr(report.startedAt)}">`,
      '    <properties>',
      ...properties.map(([k, v]) => `      <property name="${k}" value="${xmlAttr(v)}"/>`),
      '    </properties>',
      ...(unstarted ? start() : report.probes.flatMap((r) => testcase(r, options))),
      ...(baseline ? baseline.stale.flatMap((e) => staleCase(e, baseline)) : []),
      '  </testsuite>',
    ],
  };
}

/** The document around the suites. No CDATA anywhere, so character references are decoded. */
/**
 * The registry's counts as an XML comment after the declaration (JUnit has no place for them; each
 * entry not scanned is a skipped test case with its reason). A comment cannot hold `--`.
 */
function registryComment(report: CombinedReport): string[] {
  const line = registryLine(report);
  if (line === undefined) return [];
  const safe = (s: string): string => visibleLine(s).replace(/-{2,}/g, '-');
  return [
    `<!-- ${safe(line)} -->`,
    ...notScannedReasons(report).map((r) => `<!-- not scanned: ${safe(r)} -->`),
  ];
}

function document(
  suites: { lines: string[]; totals: Totals }[],
  ms: number,
  comments: readonly string[] = [],
): string {
  const sum = (k: keyof Totals): number => suites.reduce((n, s) => n + s.totals[k], 0);
  const all: Totals = {
    tests: sum('tests'),
    failures: sum('failures'),
    errors: sum('errors'),
    skipped: sum('skipped'),
  };
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    ...comments,
    `<testsuites name="stateguard" ${totalsText(all, ms)}>`,
    ...suites.flatMap((s) => s.lines),
    '</testsuites>',
  ];
  return `${escapeXmlText(lines.join('\n'))}\n`;
}

/** The JUnit reporter. */
export const junit = {
  id: 'junit',
  render(report: RunReport, options: RenderOptions) {
    return document([suite(report, options)], report.ms);
  },
  // One testsuite per server: a CI chart then shows which server failed.
  renderCombined(report, options) {
    return document(
      report.servers.map((s) => suite(s, options)),
      report.ms,
      registryComment(report),
    );
  },
} satisfies Reporter;
