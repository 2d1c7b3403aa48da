/**
 * The Markdown report is read where Markdown renders (a pull-request comment, a job summary), so
 * everything the target said must stay inert there: no HTML, no link or image, no autolink, no
 * table cell broken open, no heading or code started, whatever the target put in its strings.
 */
import { describe, expect, it } from 'vitest';
import { inertMarkdown, markdown } from '../../src/report/markdown.js';
import type { RunReport } from '../../src/probe/model/report.js';
import { report } from './sample-report.js';

const EVIL =
  '<script>alert(1)</script> <img src=x onerror=alert(2)> [click](https://evil.example/a) ' +
  '![pixel](https://evil.example/p.png) www.evil.example | a | b # head `code` *bold* _it_ \u001b[2K \u202e';

describe('the Markdown report', () => {
  it('keeps hostile text inert: no HTML, links, autolinks, code, emphasis or cell breaks', () => {
    const shown = inertMarkdown(EVIL);
    expect(shown).not.toMatch(/<[a-z]/i);
    expect(shown).not.toContain('https://');
    expect(shown).not.toMatch(/www\./i);
    expect(shown).not.toMatch(/(^|[^\\])[[\]`*_|]/);
    expect(shown).not.toContain('\u001b');
    expect(shown).not.toContain('\u202e');
    expect(shown).toContain('\\x1b');
  });

  it('puts the target’s words only where they cannot escape their cell or line', () => {
    const hostile: RunReport = {
      ...report,
      target: { ...report.target, display: `stdio:${EVIL}` },
      probes: report.probes.map((p) => ({ ...p, reason: `${EVIL}\n## injected heading` })),
    };
    const out = markdown.render(hostile, { color: false, evidence: 'summary' });
    expect(out).not.toMatch(/<script|<img/i);
    expect(out).not.toContain('](https://');
    expect(out.split('\n').filter((l) => l.startsWith('## '))).toHaveLength(1);
    // Every table row keeps its three cells: four unescaped pipes.
    for (const row of out.split('\n').filter((l) => l.startsWith('| `')))
      expect(row.match(/(^|[^\\])\|/g)).toHaveLength(4);
  });

  it('lists every probe, and shows each confirmed finding with its evidence', () => {
    const out = markdown.render(report, { color: false, evidence: 'summary' });
    for (const p of report.probes) expect(out).toContain(`| \`${p.id}\` |`);
    const confirmed = report.probes.filter((p) => p.verdict === 'confirmed');
    expect(confirmed.length).toBeGreaterThan(0);
    // A finding is titled by the flaw found, never by the property that failed to hold.
    for (const p of confirmed) expect(out).toContain(`### ❌ ${p.flaw} (\`${p.id}\`)`);
    for (const p of confirmed) expect(out).not.toContain(p.title);
    const none = markdown.render(report, { color: false, evidence: 'none' });
    expect(none.length).toBeLessThan(out.length);
  });
});
