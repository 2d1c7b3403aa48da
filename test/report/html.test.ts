/**
 * The HTML report: its escaping function, how it picks the decisive exchange, and what the page
 * holds (verdict table, controls, sequence, folded JSON, surface, uncalled tools, deviations,
 * baseline, the combined matrix), parsed with a real HTML parser rather than matched as text.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Evidence } from '../../src/probe/model/evidence.js';
import type { ProbeResult, RunReport } from '../../src/probe/model/report.js';
import { decisiveIndex, escapeHtml, html } from '../../src/report/html.js';
import { baselinedReport, combinedReport, report } from './sample-report.js';
import { CLI_MAIN, runCli } from '../helpers/cli.js';
import { elements, parseStrict, textOf, type Element } from './html-dom.js';

const summary = { color: false, evidence: 'summary' } as const;

const exchange = (label: string, answer: unknown, error?: string): Evidence => ({
  kind: 'jsonrpc',
  label,
  identity: 'A',
  transport: 'stdio',
  sent: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 't' } },
  received: answer === undefined ? [] : [{ jsonrpc: '2.0', id: 1, ...(answer as object) }],
  ...(error !== undefined ? { error } : {}),
  ms: 1,
});
const accepted = { result: { resultType: 'complete' } };
const refused = { error: { code: -32602, message: 'Invalid or expired requestState' } };
const asked = { result: { resultType: 'input_required', requestState: 'x' } };

const probe = (verdict: ProbeResult['verdict'], reason: string, evidence: Evidence[]) =>
  ({ ...report.probes[0], verdict, reason, evidence }) as ProbeResult;

describe('escapeHtml', () => {
  it('writes the five HTML metacharacters as entities and control and bidi characters visibly', () => {
    expect(escapeHtml(`<a href="x" title='y'>&amp;</a>`)).toBe(
      '&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;amp;&lt;/a&gt;',
    );
    expect(escapeHtml('a\u202eb\u001b[2Kc\u0000')).toBe('a\\u202eb\\x1b[2Kc\\x00');
    expect(escapeHtml('line 1\nline 2\ttab')).toBe('line 1\nline 2\ttab');
  });
});

describe('the decisive exchange', () => {
  it('is the exchange of a confirmed verdict whose label the reason names, not a round-1 ask', () => {
    const r = probe(
      'confirmed',
      "call 2 sent with call 1's requestState was answered with call 1's canary",
      [
        exchange('call 1: untouched retry (spec answers)', accepted),
        exchange("call 2 sent with call 1's state: round 1 as A", asked),
        exchange("call 2 sent with call 1's state", accepted),
        exchange('attribution: untouched retry', accepted),
      ],
    );
    expect(decisiveIndex(r)).toBe(2);
  });

  it('is a refusal for a refuted verdict, and a call that drew no decision for an errored one', () => {
    const evidence = [
      exchange('create_report: round 1', asked),
      exchange('random blob of the same shape', refused),
      exchange('the final round again, unchanged', refused),
      exchange('create_report: untouched retry', accepted),
    ];
    expect(
      decisiveIndex(probe('refuted', 'create_report refused its final round sent again', evidence)),
    ).toBe(2);
    const timedOut = [
      ...evidence,
      exchange('the final round again', undefined, 'timeout: 5000 ms'),
    ];
    expect(decisiveIndex(probe('errored', 'no decision', timedOut))).toBe(4);
  });

  it('falls back to the last candidate, and is none for a skipped probe or one without exchanges', () => {
    const evidence = [exchange('one', accepted), exchange('two', accepted)];
    expect(decisiveIndex(probe('confirmed', 'nothing in common', evidence))).toBe(1);
    expect(decisiveIndex(probe('skipped', 'one two', evidence))).toBeUndefined();
    expect(
      decisiveIndex(probe('errored', 'x', [{ kind: 'note', text: 'not sent: budget' }])),
    ).toBeUndefined();
  });
});

describe('the HTML page of one run', () => {
  const doc = parseStrict(html.render(baselinedReport, summary));
  const all = elements(doc);
  const byClass = (c: string): Element[] =>
    all.filter((e) =>
      (e.attrs.find((a) => a.name === 'class')?.value ?? '').split(' ').includes(c),
    );

  it('parses without a single HTML parse error and declares its CSP first in <head>', () => {
    const metas = all.filter((e) => e.nodeName === 'meta');
    expect(metas[0]?.attrs).toEqual([{ name: 'charset', value: 'utf-8' }]);
    const csp = metas[1]?.attrs.find((a) => a.name === 'content')?.value ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("base-uri 'none'");
    expect(all.some((e) => e.nodeName === 'script')).toBe(false);
  });

  it('opens with a verdict table: one row per probe and per stale entry, the verdict in words', () => {
    const table = byClass('matrix')[0];
    expect(table?.nodeName).toBe('table');
    const rows = elements(table as Element).filter(
      (e) => e.nodeName === 'tr' && e.parentNode?.nodeName === 'tbody',
    );
    // What needs action first: confirmed, errored, refuted, skipped (see the describe below).
    const order = ['confirmed', 'errored', 'refuted', 'skipped'];
    const shown = [...report.probes].sort(
      (a, b) => order.indexOf(a.verdict) - order.indexOf(b.verdict),
    );
    expect(rows.map((r) => textOf(r).split(/✗|✓|–|!/)[0])).toEqual([
      ...shown.map((p) => p.id),
      'state/replay-request@stdio:./server.js',
    ]);
    for (const [i, p] of shown.entries())
      expect(textOf(rows[i] as Element)).toContain(`${p.verdict}`);
    expect(textOf(rows[0] as Element)).toContain('(baselined)');
  });

  it('shows controls held and failed in words, the sequence with its decisive exchange, the JSON folded', () => {
    const controls = byClass('controls').map(textOf).join('\n');
    expect(controls).toContain('✓ held');
    expect(controls).toContain('✗ failed');
    const decisive = byClass('decisive');
    expect(decisive).toHaveLength(1);
    expect(textOf(decisive[0] as Element)).toContain('A → server');
    expect(textOf(decisive[0] as Element)).toContain('server → A');
    const folds = all.filter((e) => e.nodeName === 'details');
    expect(folds.length).toBeGreaterThan(0);
    expect(folds.every((d) => !d.attrs.some((a) => a.name === 'open'))).toBe(true);
    expect(textOf(doc)).toContain('"requestState"');
  });

  it('states the baseline, and in full mode unfolds the JSON; in none mode shows no exchange', () => {
    expect(textOf(doc)).toContain('stateguard.baseline');
    expect(textOf(doc)).toContain('its probe is now refuted on this target');
    const full = elements(parseStrict(html.render(report, { ...summary, evidence: 'full' })));
    expect(
      full
        .filter((e) => e.nodeName === 'details')
        .every((d) => d.attrs.some((a) => a.name === 'open')),
    ).toBe(true);
    const none = elements(parseStrict(html.render(report, { ...summary, evidence: 'none' })));
    expect(none.some((e) => e.nodeName === 'details' || e.nodeName === 'ol')).toBe(false);
  });

  it('shows the surface discovery found, the tools left uncalled and the protocol deviations', () => {
    const rich: RunReport = {
      ...report,
      protocol: { ...report.protocol, deviations: ['no resultType on tools/list'] },
      surface: {
        handles: ['open_workspace → read_workspace.workspace_id'],
        flows: ['export_workspace'],
        tried: ['open_workspace (accepted)'],
        evidence: [exchange('discover open_workspace', accepted)],
      },
      uncalled: [{ tool: 'run', why: 'may run commands (needs --include-destructive)' }],
    };
    const text = textOf(parseStrict(html.render(rich, summary)));
    for (const s of [
      'no resultType on tools/list',
      'open_workspace → read_workspace.workspace_id',
      'export_workspace',
      'Not called (1)',
      'may run commands (needs --include-destructive)',
      'Discovery exchanges (1)',
    ])
      expect(text).toContain(s);
  });
});

describe('the HTML page of several servers', () => {
  const doc = parseStrict(html.renderCombined?.(combinedReport, summary) ?? '');
  const all = elements(doc);

  it('opens with a server × probe matrix, then one section per server', () => {
    const matrix = all.find((e) => e.nodeName === 'table');
    const thead = elements(matrix as Element).find((e) => e.nodeName === 'thead') as Element;
    const head = elements(thead)
      .filter((e) => e.nodeName === 'th')
      .map(textOf);
    const ids = [...new Set(combinedReport.servers.flatMap((r) => r.probes.map((p) => p.id)))];
    expect(head).toEqual(['server', ...ids, 'problem']);
    const rows = elements(matrix as Element).filter(
      (e) => e.nodeName === 'tr' && e.parentNode?.nodeName === 'tbody',
    );
    expect(rows.map((r) => textOf(r))).toEqual([
      'payments✗ confirmed✓ refuted– skipped! errored✗ confirmed✗ confirmed',
      'search✗ confirmed✓ refuted– skipped———',
      'tool——————! target problem unresolved placeholder ${env:TOOL_HOME} in command',
    ]);
    const sections = all.filter(
      (e) => e.nodeName === 'section' && e.attrs.some((a) => a.value === 'server'),
    );
    expect(
      sections.map((s) => textOf(elements(s).find((e) => e.nodeName === 'h2') as Element)),
    ).toEqual(['payments', 'search', 'tool']);
    expect(textOf(sections[0] as Element)).toContain(
      '.mcp.json line 3, entry payments (claude-code)',
    );
  });

  it('links each matrix cell to its probe section, by ids the page holds', () => {
    const ids = new Set(
      all.flatMap((e) => e.attrs.filter((a) => a.name === 'id').map((a) => a.value)),
    );
    const links = all.flatMap((e) => e.attrs.filter((a) => a.name === 'href').map((a) => a.value));
    expect(links.length).toBeGreaterThan(4);
    for (const href of links) expect(ids.has(href.slice(1)), href).toBe(true);
  });
});

describe('stateguard scan --format html', () => {
  it('writes the page of a real scan, each confirmed probe with the exchange it rests on highlighted', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'stateguard-html-cli-'));
    try {
      const output = join(dir, 'report.html');
      const fixture = `${process.execPath} ${CLI_MAIN} fixture --mode flawed --transport stdio`;
      const secrets = {
        STATEGUARD_IDENTITY_A: 'html-alice-7c1d',
        STATEGUARD_IDENTITY_B: 'html-bob-90e2',
      };
      const run = await runCli(
        ['scan', '--stdio', fixture, '--format', 'html', '--output', output],
        secrets,
      );
      expect(run.code).toBe(1);
      const page = readFileSync(output, 'utf8');
      for (const secret of Object.values(secrets)) expect(page).not.toContain(secret);
      const probes = elements(parseStrict(page)).filter(
        (e) => e.nodeName === 'section' && e.attrs.some((a) => a.value.startsWith('probe ')),
      );
      const confirmed = probes.filter((e) => e.attrs.some((a) => a.value === 'probe v-confirmed'));
      expect(confirmed.length).toBeGreaterThanOrEqual(4);
      for (const section of confirmed) {
        const decisive = elements(section).filter((e) =>
          e.attrs.some((a) => a.name === 'class' && a.value.split(' ').includes('decisive')),
        );
        expect(decisive, textOf(section).slice(0, 80)).toHaveLength(1);
      }
      // The handle probe rests on B presenting A's handle, not on any of its controls.
      const handle = confirmed.find((e) => textOf(e).includes('handle/cross-principal'));
      const highlighted = elements(handle as Element).find((e) =>
        e.attrs.some((a) => a.value.endsWith(' decisive')),
      );
      expect(textOf(highlighted as Element)).toContain("B presents A's handle");
      expect(textOf(highlighted as Element)).toContain('B → server');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('what needs action comes first', () => {
  // The confirmed finding last in the report, as a registry order can put it.
  const reversed: RunReport = {
    ...report,
    probes: [...report.probes].reverse(),
    baseline: undefined,
  };
  const doc = parseStrict(html.render(reversed, summary));
  const all = elements(doc);
  const classOf = (e: Element): string => e.attrs.find((a) => a.name === 'class')?.value ?? '';
  const idOf = (e: Element): string => e.attrs.find((a) => a.name === 'id')?.value ?? '';
  const rank = ['confirmed', 'errored', 'refuted', 'skipped'];
  const verdicts = reversed.probes
    .map((p) => p.verdict)
    .sort((a, b) => rank.indexOf(a) - rank.indexOf(b));

  it('orders the table rows and the cards confirmed, errored, refuted, skipped', () => {
    const rows = all.filter(
      (e) =>
        e.nodeName === 'tr' && e.parentNode?.nodeName === 'tbody' && classOf(e).startsWith('v-'),
    );
    expect(rows.map((r) => classOf(r).slice(2))).toEqual(verdicts);
    const cards = all.filter((e) => e.nodeName === 'section' && classOf(e).startsWith('probe '));
    expect(cards.map((c) => classOf(c).split(' ')[1]?.slice(2))).toEqual(verdicts);
    // Each row still links to its own card.
    for (const row of rows) {
      const href =
        elements(row)
          .find((e) => e.nodeName === 'a')
          ?.attrs.find((a) => a.name === 'href')?.value ?? '';
      const card = cards.find((c) => `#${idOf(c)}` === href);
      expect(card && classOf(card)).toBe(`probe ${classOf(row)}`);
    }
  });

  it('says at the top how many were confirmed, linked to the first card', () => {
    const n = reversed.probes.filter((p) => p.verdict === 'confirmed').length;
    const lead = all.find((e) => classOf(e) === 'lead');
    expect(lead && textOf(lead)).toContain(
      `${n} confirmed finding${n === 1 ? '' : 's'}: see the first`,
    );
    // Before the verdict table.
    expect(all.indexOf(lead as Element)).toBeLessThan(
      all.findIndex((e) => classOf(e) === 'matrix'),
    );
    const href = elements(lead as Element)
      .find((e) => e.nodeName === 'a')
      ?.attrs.find((a) => a.name === 'href')?.value;
    const first = all.find((e) => e.nodeName === 'section' && classOf(e).startsWith('probe '));
    expect(href).toBe(`#${idOf(first as Element)}`);
    expect(classOf(first as Element)).toBe('probe v-confirmed');
  });
});
