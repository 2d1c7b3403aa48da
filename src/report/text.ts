/**
 * Text for a terminal: one line per probe (verdict, id, reason), its controls and observations
 * beneath, an evidence summary, and the summary line. `errored` is never green.
 */
import type { ProbeResult, RunReport, Verdict } from '../probe/types.js';
import { VERDICTS } from '../probe/types.js';
import { evidenceLine } from './evidence-lines.js';
import type { RenderOptions, Reporter } from './types.js';

const STYLE: Record<Verdict, { label: string; code: string }> = {
  confirmed: { label: '✗ CONFIRMED', code: '1;31' },
  refuted: { label: '✓ refuted  ', code: '32' },
  skipped: { label: '– skipped  ', code: '2' },
  errored: { label: '! ERRORED  ', code: '1;33' },
};

const paint = (on: boolean, code: string, s: string): string =>
  on ? `\u001b[${code}m${s}\u001b[0m` : s;

/** `3 confirmed · 9 refuted · 2 skipped · 1 errored (target: stdio:./server.js)` */
export function summaryLine(report: RunReport): string {
  const counts = VERDICTS.map((v) => `${report.probes.filter((p) => p.verdict === v).length} ${v}`);
  return `${counts.join(' · ')} (target: ${report.target.display})`;
}

function header(report: RunReport): string {
  const p = report.protocol;
  const era =
    p.era === 'modern'
      ? `2026-07-28${p.discover ? ' (server/discover)' : ' (no server/discover)'}`
      : p.era === 'legacy'
        ? `legacy ${p.protocolVersion ?? ''} (initialize)`.trimEnd()
        : 'unknown protocol';
  const server = p.serverInfo?.name
    ? ` · server ${p.serverInfo.name} ${p.serverInfo.version ?? ''}`.trimEnd()
    : '';
  return `stateguard ${report.tool.version} · ${report.target.display} · ${era}${server} · ${p.toolNames.length} tools`;
}

function probeBlock(r: ProbeResult, o: RenderOptions): string[] {
  const style = STYLE[r.verdict];
  const lines = [`${paint(o.color, style.code, style.label)} ${r.id}  ${r.reason}`];
  for (const [id, c] of Object.entries(r.controls)) {
    const mark = c.held ? paint(o.color, '32', '✓') : paint(o.color, '1;33', '✗');
    lines.push(`    control ${mark} ${id}: expected ${c.expected}; observed ${c.observed}`);
  }
  for (const obs of r.observations) lines.push(`    observation ${obs.label}: ${obs.detail}`);
  if (o.evidence === 'none' || r.evidence.length === 0) return lines;
  lines.push(`    evidence (${r.evidence.length}):`);
  for (const e of r.evidence) {
    lines.push(`      ${evidenceLine(e)}`);
    if (o.evidence === 'full') {
      const body = e.kind === 'stderr' ? e.lines.join('\n') : JSON.stringify(e, null, 2);
      for (const l of body.split('\n')) lines.push(`        ${l}`);
    }
  }
  return lines;
}

/** The text reporter. */
export const text: Reporter = {
  id: 'text',
  render(report, options) {
    const lines = [header(report), ''];
    if (report.problem !== undefined)
      lines.push(`${paint(options.color, '1;33', '! target problem')} ${report.problem}`, '');
    for (const r of report.probes) lines.push(...probeBlock(r, options));
    if (report.probes.length > 0) lines.push('');
    lines.push(summaryLine(report));
    return `${lines.join('\n')}\n`;
  },
};
