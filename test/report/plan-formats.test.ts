/**
 * The call plan in every format: where a target's hostile names and evidence land (inert in
 * Markdown, well-formed in JUnit, valid in SARIF), the bounds every format keeps for a target that
 * lists ten thousand tools with names a megabyte long, and each server's plan in the combined
 * reports.
 */
import { describe, expect, it } from 'vitest';
import type { PlanEntry } from '../../src/probe/model/tools.js';
import type { RunReport } from '../../src/probe/model/report.js';
import { REPORTERS } from '../../src/report/index.js';
import { toSarif, toSarifCombined } from '../../src/report/sarif.js';
import type { RenderOptions } from '../../src/report/types.js';
import { combined } from './sample-combined.js';
import { elements, parseStrict } from './html-dom.js';
import { githubProblems } from './sarif-github.js';
import { schemaProblems } from './sarif-validators.js';
import { combinedReport, plan, plannedReport } from './sample-report.js';

const options: RenderOptions = { color: false, evidence: 'summary' };

const EVIL =
  '<script>alert(1)</script> [x](https://evil.example) `code` | cell | \u001b[2J\u202e\n# head';

const hostile: RunReport = {
  ...plannedReport,
  plan: {
    allowTools: [],
    includeDestructive: false,
    entries: [
      { kind: 'tool', name: `read${EVIL}`, class: 'read', evidence: [EVIL], calledBy: 'default' },
      {
        kind: 'tool',
        name: `wipe${EVIL}`,
        class: 'destroy',
        evidence: [EVIL, EVIL],
        reach: `--allow-tool wipe${EVIL}`,
      },
    ],
  },
};

describe('a plan with hostile names and evidence', () => {
  it('markdown: each entry stays one row of five cells, with no HTML, link, code or heading', () => {
    const md = REPORTERS.markdown.render(hostile, options);
    expect(md).not.toMatch(/<script/i);
    expect(md).not.toContain('](https://');
    expect(md).not.toMatch(/^# head/m);
    expect(md).not.toContain('\u001b');
    expect(md).not.toContain('\u202e');
    const rows = md.split('\n').filter((l) => /^\| (tool|prompt|resource-template) \|/.test(l));
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      expect(row.match(/(^|[^\\])\|/g)).toHaveLength(6);
      // No code span: the flag names the tool, so it is escaped text, not between backticks.
      expect(row).not.toMatch(/(^|[^\\])`/);
    }
  });

  it('text: escaped, one line per entry', () => {
    const out = REPORTERS.text.render(hostile, { ...options, all: true });
    expect(out).not.toContain('\u001b');
    expect(out).not.toContain('\u202e');
    expect(out).not.toMatch(/^# head/m);
  });

  it('junit: well-formed, markup escaped, no control character', () => {
    const xml = REPORTERS.junit.render(hostile, options);
    expect(xml).not.toContain('<script>');
    expect(xml).toContain('name="left alone" value="tool wipe&lt;script&gt;');
    const controls = [...xml].filter((c) => c.charCodeAt(0) < 0x20 && !'\t\n\r'.includes(c));
    expect(controls).toEqual([]);
  });

  it('sarif: one note per entry left alone, exact and valid', () => {
    const log = JSON.parse(JSON.stringify(toSarif(hostile, options)));
    expect(schemaProblems(log)).toEqual([]);
    expect(githubProblems(log, JSON.stringify(log))).toEqual([]);
    const notes = log.runs[0].invocations[0].toolExecutionNotifications.filter(
      (n: { message: { text: string } }) => n.message.text.startsWith('left alone: '),
    );
    expect(notes).toHaveLength(1);
    expect(notes[0].level).toBe('note');
    expect(notes[0].properties).toMatchObject({
      kind: 'tool',
      class: 'destroy',
      evidence: [EVIL, EVIL],
    });
  });
});

describe('a plan of ten thousand tools with names a megabyte long, in every format', () => {
  const long = `${'n'.repeat(1 << 20)}\u202e`;
  const reach = `--allow-tool ${long}`.split('').join('');
  const entries: PlanEntry[] = Array.from({ length: 10_000 }, (_, i) =>
    i % 2 === 0
      ? { kind: 'tool', name: long, class: 'read', evidence: [long], calledBy: 'default' }
      : { kind: 'tool', name: long, class: 'outside', evidence: [long, long], reach },
  );
  const huge: RunReport = {
    ...plannedReport,
    uncalled: [],
    plan: { entries, allowTools: [], includeDestructive: false },
  };

  it.each([
    ['text', 400_000, '… 4900 more left alone, not shown'],
    ['markdown', 200_000, '… 4960 more called, not shown'],
    ['html', 3_000_000, '… 4000 more left alone, not shown'],
    ['sarif', 5_000_000, '4000 more left alone, not listed'],
    ['junit', 1_000_000, '… 4800 more, not listed'],
  ] as const)('%s stays under %i characters and says what it left out', (format, max, cut) => {
    const started = performance.now();
    const out = REPORTERS[format].render(huge, options);
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(out.length).toBeLessThan(max);
    expect(out).toContain(cut);
    expect(out).not.toContain('\u202e');
  });

  it('sarif stays valid', () => {
    const log = JSON.parse(JSON.stringify(toSarif(huge, options)));
    expect(schemaProblems(log)).toEqual([]);
  });
});

describe('each server’s plan in the combined reports', () => {
  const search = combinedReport.servers[1] as RunReport;
  const plans = combinedReport.servers.filter((s) => s.plan !== undefined);

  it('the test report has a server with a plan and one without', () => {
    expect(plans).toHaveLength(1);
    expect(search.plan?.allowTools).toEqual(['send_invoice']);
  });

  it('text and markdown: the plan under its server', () => {
    const text = REPORTERS.text.renderCombined?.(combinedReport, options) ?? '';
    const section = text.slice(text.indexOf('── search'), text.indexOf('── tool'));
    expect(section).toContain(
      'call plan: 5 called (2 read, 2 create, 1 outside) · 5 left alone (1 write, 2 outside, 1 destroy, 1 unknown)',
    );
    const md = REPORTERS.markdown.renderCombined?.(combined, options) ?? '';
    const payments = md.slice(md.indexOf('### payments'), md.indexOf('### notes'));
    expect(payments).toContain(`**Call plan:** 4 called (2 read, 2 create)`);
    expect(payments).toContain('| tool | delete\\_order | destroy |');
    expect(payments).not.toContain('list\\_orders');
  });

  it('html: a plan section in the server’s section, linked by its own id', () => {
    const page = REPORTERS.html.renderCombined?.(combinedReport, options) ?? '';
    expect(page.match(/<h4 id="s\d-plan">Call plan<\/h4>/g)).toEqual([
      '<h4 id="s1-plan">Call plan</h4>',
    ]);
    expect(page).toContain(
      '<span class="ok">✓ called</span> <span class="muted">(--allow-tool)</span>',
    );
  });

  it('sarif and junit: the notes and properties of that server only', () => {
    const log = toSarifCombined(combinedReport, options);
    const left = (log.runs[0]?.invocations ?? []).map(
      (inv) =>
        (inv.toolExecutionNotifications ?? []).filter((n) =>
          (n.message.text ?? '').startsWith('left alone: '),
        ).length,
    );
    expect(left).toEqual([0, 5, 0]);
    expect(log.runs[0]?.invocations?.[1]?.properties).toMatchObject({
      server: 'search',
      callPlan: { allowTools: ['send_invoice'], includeDestructive: false },
    });
    const xml = REPORTERS.junit.renderCombined?.(combinedReport, options) ?? '';
    expect(xml.match(/<property name="left alone"/g)).toHaveLength(5);
    expect(schemaProblems(JSON.parse(JSON.stringify(log)))).toEqual([]);
  });

  it('a report without a plan keeps its old list (plan sample unchanged)', () => {
    expect(plan.entries).toHaveLength(10);
    const { plan: _, ...old } = plannedReport;
    expect(REPORTERS.markdown.render(old, options)).toContain('**Not called (5)**');
    expect(REPORTERS.html.render(old, options)).toContain('Not called (5)');
    expect(REPORTERS.junit.render(old, options)).toContain('name="not called"');
    expect(REPORTERS.sarif.render(old, options)).toContain('not called: update_profile');
  });
});

describe('a report read back from a file', () => {
  // Kind, class and grant are the classifier's, but a JSON file is a file: forged, they stay text.
  const forged: RunReport = {
    ...plannedReport,
    plan: {
      ...plan,
      entries: [
        {
          kind: '<b>k</b>' as never,
          name: 'n',
          class: '"><script>alert(1)</script>' as never,
          evidence: [],
          calledBy: '<i>by</i>' as never,
        },
      ],
    },
  };

  it('escapes them in HTML, names only a known class, and keeps them inert in Markdown', () => {
    const page = REPORTERS.html.render(forged, options);
    const doc = parseStrict(page);
    expect(elements(doc).some((e) => ['script', 'b', 'i'].includes(e.nodeName))).toBe(false);
    expect(page).toContain('<span class="cls c-unknown">&quot;&gt;&lt;script&gt;');
    const md = REPORTERS.markdown.render(forged, options);
    expect(md).not.toMatch(/<(b|i|script)>/);
    const text = REPORTERS.text.render(forged, { ...options, all: true });
    expect(text).toContain('<b>k</b>');
  });
});

describe('with a plan, what was left alone is said once', () => {
  it.each(['text', 'markdown', 'html', 'sarif', 'junit'] as const)('%s', (format) => {
    const out = REPORTERS[format].render(plannedReport, options);
    expect(out).not.toMatch(/not called/i);
    expect(out).toMatch(/left alone/);
  });
});
