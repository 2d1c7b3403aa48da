/**
 * Combined reports (`--config`) with hostile entries: a server's name and file come from a
 * configuration file (which may come from anywhere: a cloned repository's `.mcp.json`), so they
 * are escaped like everything a target sends; and the baseline written for several servers.
 */
import { describe, expect, it } from 'vitest';
import { combinedBaselineText } from '../../src/cli/write-baseline.js';
import { parseBaseline } from '../../src/probe/runner/baseline.js';
import type { CombinedReport } from '../../src/probe/model/report.js';
import { REPORTERS } from '../../src/report/index.js';
import { combinedSummaryLine } from '../../src/report/matrix.js';
import { combined } from './sample-combined.js';

const EVIL = 'evil\u001b[2J<script>x</script>|`[a](https://e.example)`\u202e\n# head';

const hostile: CombinedReport = {
  ...combined,
  configs: [`${EVIL}.json`],
  servers: combined.servers.map((s) => ({
    ...s,
    ...(s.server ? { server: { ...s.server, name: EVIL, file: `${EVIL}.json` } } : {}),
  })),
};

describe('a combined report with hostile names', () => {
  it('text: no terminal escape, no bidi override, no line break from a name', () => {
    const text =
      REPORTERS.text.renderCombined?.(hostile, { color: false, evidence: 'summary' }) ?? '';
    expect(text).not.toContain('\u001b');
    expect(text).not.toContain('\u202e');
    expect(text).not.toMatch(/^# head/m);
  });

  it('markdown: the name stays in its cell, no HTML, link or heading', () => {
    const md =
      REPORTERS.markdown.renderCombined?.(hostile, { color: false, evidence: 'summary' }) ?? '';
    expect(md).not.toMatch(/<script/i);
    expect(md).not.toContain('https://');
    expect(md).not.toMatch(/^# head/m);
    const rows = md.split('\n').filter((l) => l.startsWith('| evil'));
    for (const row of rows) expect(row.split(/(?<!\\)\|/).length).toBe(2 + 4 + 3);
  });

  it('junit and json: well-formed, the name escaped', () => {
    const xml =
      REPORTERS.junit.renderCombined?.(hostile, { color: false, evidence: 'summary' }) ?? '';
    expect(xml).not.toContain('<script>');
    expect(xml).not.toContain('\u001b');
    const json =
      REPORTERS.json.renderCombined?.(hostile, { color: false, evidence: 'summary' }) ?? '';
    expect((JSON.parse(json) as CombinedReport).servers[0]?.server?.name).toBe(EVIL);
    expect(json).not.toContain('\u001b');
  });
});

describe('the baseline written for several servers', () => {
  it("lists every server's confirmed findings under its name, and reads back as a baseline", () => {
    const { text, entries } = combinedBaselineText(
      combined.servers,
      new Date('2026-12-01T00:00:00Z'),
    );
    expect(entries).toBe(2);
    expect(text).toBe(
      [
        '# stateguard baseline written 2026-12-01 for 4 servers',
        '# stdio:./server.js (payments, .mcp.json:3)',
        'state/tamper@payments',
        '# stdio:./server.js (notes, .vscode/mcp.json:5)',
        'state/tamper@notes',
        '',
      ].join('\n'),
    );
    // Two servers with one command line: each entry names its own server.
    expect(parseBaseline(text, 'b').entries.map((e) => e.text)).toEqual([
      'state/tamper@payments',
      'state/tamper@notes',
    ]);
  });
});

describe('the summary over servers with an undecided probe', () => {
  it('says it first', () => {
    const [first, ...rest] = combined.servers;
    if (first === undefined) throw new Error('no server');
    const undecided: CombinedReport = {
      ...combined,
      servers: [
        {
          ...first,
          probes: first.probes.map((p) =>
            p.verdict === 'skipped' ? { ...p, decideWith: ['--allow-tool refund_order'] } : p,
          ),
        },
        ...rest,
      ],
    };
    const skipped = first.probes.filter((p) => p.verdict === 'skipped').length;
    expect(skipped).toBeGreaterThan(0);
    expect(combinedSummaryLine(undecided)).toMatch(
      new RegExp(`^${skipped} undecided \\(the report names what would decide each\\) · `),
    );
    expect(combinedSummaryLine(combined)).not.toContain('undecided');
  });
});
