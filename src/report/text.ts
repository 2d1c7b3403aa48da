/**
 * Text for a terminal: one line per probe (verdict, id, reason), its controls and observations
 * beneath, an evidence summary, and the summary line. `errored` is never green.
 */

import { nothingDecided, undecidedClause } from '../probe/runner/decided.js';
import { cutShortSentence } from '../probe/model/surface-map.js';
import { createdItem, createdSentence } from './created.js';
import { onTargetProblem, TARGET_PROBLEM_REASON } from './headline.js';
import { STALE_REASON } from '../probe/runner/baseline.js';
import type {
  BaselineSummary,
  CombinedReport,
  ProbeResult,
  RunReport,
  ShedSummary,
} from '../probe/model/report.js';
import type { Verdict } from '../probe/model/probe.js';
import { VERDICTS } from '../probe/model/probe.js';
import { detailLines } from './evidence-lines.js';
import {
  cell,
  combinedSummaryLine,
  registryLine,
  matrixProbes,
  notScannedReasons,
  serverName,
  serverStatus,
  type Cell,
} from './matrix.js';
import { PLAN_BOUNDS, planLines } from './plan.js';
import type { RenderOptions, Reporter } from './types.js';
import { visible, visibleDeep, visibleLine } from './visible.js';

const STYLE: Record<Verdict, { label: string; code: string }> = {
  confirmed: { label: '✗ CONFIRMED', code: '1;31' },
  refuted: { label: '✓ refuted  ', code: '32' },
  skipped: { label: '– skipped  ', code: '2' },
  errored: { label: '! ERRORED  ', code: '1;33' },
};

const paint = (on: boolean, code: string, s: string): string =>
  on ? `\u001b[${code}m${s}\u001b[0m` : s;

/**
 * `3 confirmed · 9 refuted · 2 skipped · 1 errored (target: stdio:./server.js)`; with a baseline,
 * `3 confirmed (2 baselined) · … · 1 stale baseline entry (target: …)`.
 */
export function summaryLine(report: RunReport): string {
  const counts = VERDICTS.map((v) => `${report.probes.filter((p) => p.verdict === v).length} ${v}`);
  const { baseline } = report;
  if (baseline !== undefined) {
    const accepted = report.probes.filter((p) => p.baselined === true).length;
    counts[0] = `${counts[0]} (${accepted} baselined)`;
    const stale = baseline.stale.length;
    if (stale > 0) counts.push(`${stale} stale baseline ${stale === 1 ? 'entry' : 'entries'}`);
    const unmatched = baseline.unmatched.length;
    if (unmatched > 0)
      counts.push(`${unmatched} unmatched baseline ${unmatched === 1 ? 'entry' : 'entries'}`);
  }
  if (nothingDecided(report)) counts.push('nothing decided');
  // Said first: a gate that fails on it must say why before anything else.
  const undecided = nothingDecided(report) ? undefined : undecidedClause(report);
  if (undecided !== undefined) counts.unshift(undecided);
  return `${counts.join(' · ')} (target: ${visible(report.target.display)})`;
}

/** `2026-07-28 (server/discover)`, `legacy 2025-11-25 (initialize)` or `unknown protocol`. */
export function protocolEra(p: RunReport['protocol']): string {
  if (p.era === 'modern')
    return `2026-07-28${p.discover ? ' (server/discover)' : ' (no server/discover)'}`;
  if (p.era === 'legacy') return `legacy ${p.protocolVersion ?? ''} (initialize)`.trimEnd();
  return 'unknown protocol';
}

function header(report: RunReport): string {
  const p = report.protocol;
  const era = protocolEra(p);
  const server = p.serverInfo?.name
    ? ` · server ${p.serverInfo.name} ${p.serverInfo.version ?? ''}`.trimEnd()
    : '';
  return `stateguard ${report.tool.version} · ${report.target.display} · ${era}${server} · ${p.toolNames.length} tools`;
}

function probeBlock(r: ProbeResult, o: RenderOptions): string[] {
  const style = STYLE[r.verdict];
  const mark = (held: boolean): string =>
    held ? paint(o.color, '32', '✓') : paint(o.color, '1;33', '✗');
  const accepted = r.baselined === true ? ` ${paint(o.color, '2', '(baselined)')}` : '';
  return [
    `${paint(o.color, style.code, style.label)} ${r.id}${accepted}  ${r.verdict === 'confirmed' ? `${paint(o.color, '1', r.flaw)}: ` : ''}${r.reason}`,
    ...detailLines(r, o.evidence, mark),
  ];
}

function staleLines(baseline: BaselineSummary, o: RenderOptions): string[] {
  return baseline.stale.map(
    (entry) =>
      `${paint(o.color, '1;31', '✗ STALE    ')} baseline entry ${entry}: ${STALE_REASON}; remove it from ${baseline.file}`,
  );
}

const CELL_CODE: Record<Cell, string> = {
  confirmed: STYLE.confirmed.code,
  baselined: '2',
  refuted: STYLE.refuted.code,
  skipped: STYLE.skipped.code,
  errored: STYLE.errored.code,
  '-': '2',
};

/** The server × probe matrix: one row per server, one column per probe, and how each ended. */
function matrixLines(report: CombinedReport, o: RenderOptions): string[] {
  const ids = matrixProbes(report);
  const names = report.servers.map((s) => visibleLine(serverName(s)));
  const widths = [
    Math.max(6, ...names.map((n) => n.length)),
    5,
    ...ids.map((id) => Math.max(id.length, 9)),
  ];
  const pad = (s: string, i: number): string => s.padEnd(widths[i] ?? 0);
  const lines = [['server', 'via', ...ids, 'result'].map(pad).join('  ')];
  report.servers.forEach((server, row) => {
    const cells = ids.map((id, i) => {
      const c = cell(server, id);
      return paint(o.color, CELL_CODE[c], pad(c, i + 2));
    });
    const status = serverStatus(server);
    const shown = paint(
      o.color,
      status === 'clean' ? '32' : status === 'not scanned' ? '2' : '1;31',
      status,
    );
    lines.push([pad(names[row] ?? '', 0), pad(server.target.kind, 1), ...cells, shown].join('  '));
  });
  return lines.map((l) => l.trimEnd());
}

/** `── name · file:line (format) ──`: where a server's details start. */
function serverHeading(server: RunReport): string {
  const s = server.server;
  const where =
    s === undefined ? '' : ` · ${visibleLine(s.file)}:${s.line} (${visibleLine(s.format)})`;
  return `── ${visibleLine(serverName(server, 80))}${where} ──`;
}

/**
 * One line on what the scan sent, when the report counts it: `requests: 69 (opening 5, discovery
 * 9, shared setup 20, probes 35: state/tamper 3, …)`. The shared setup (flows prepared and run
 * untouched once for every probe) is counted once; each probe's figure is what it sent on top.
 */
export function requestsLine(report: RunReport): string | undefined {
  const r = report.requests;
  if (r === undefined) return undefined;
  const own = report.probes
    .filter((p) => (p.requests ?? 0) > 0)
    .map((p) => `${p.id} ${p.requests}`)
    .join(', ');
  const shared = r.shared === undefined ? '' : `, shared setup ${r.shared}`;
  const again = report.rerunAlone ?? [];
  const rerun = again.length === 0 ? '' : `; run again alone: ${again.join(', ')}`;
  return (
    `requests: ${r.total} (opening ${r.opening}, discovery ${r.survey}${shared}, ` +
    `probes ${r.probes}${own === '' ? '' : `: ${own}`})${rerun}`
  );
}

/**
 * One line on the load the server shed, when it shed any: `load shed: 12 answers (HTTP 429 ×10,
 * HTTP 503 ×2); 12 sent again, none lost; requests waited 3.4 s in all; slowed to 1 in flight`.
 */
export function shedLine(shed: ShedSummary): string {
  const kinds = (['429', '503', 'in-band'] as const)
    .filter((k) => shed.byKind[k] > 0)
    .map((k) => `${k === 'in-band' ? 'in-band rate-limit error' : `HTTP ${k}`} ×${shed.byKind[k]}`)
    .join(', ');
  const lost = shed.gaveUp === 0 ? 'none lost' : `${shed.gaveUp} never got through`;
  const slowed = shed.narrowest === undefined ? '' : `; slowed to ${shed.narrowest} in flight`;
  return (
    `load shed: ${shed.total} answer${shed.total === 1 ? '' : 's'} (${kinds}); ${shed.retried} sent again, ${lost}; ` +
    `requests waited ${(shed.waitedMs / 1000).toFixed(1)} s in all${slowed}`
  );
}

/** Most plan rows of each group (called, left alone) the text report shows. */
const TEXT_PLAN_ROWS = 100;

/** The registry's counts line, and each reason entries were not scanned for, with its count. */
function registryLines(report: CombinedReport): string[] {
  const line = registryLine(report);
  if (line === undefined) return [];
  return [
    visibleLine(line),
    ...notScannedReasons(report).map((r) => `  not scanned: ${visibleLine(r)}`),
  ];
}

/** The text reporter. */
export const text = {
  id: 'text',
  renderCombined(report, options) {
    const n = report.servers.length;
    const lines = [
      `stateguard ${report.tool.version} · ${n} server${n === 1 ? '' : 's'} from ${report.configs.map((c) => visibleLine(c)).join(', ')}`,
      ...registryLines(report),
      '',
      ...matrixLines(report, options),
      '',
    ];
    for (const server of report.servers) {
      lines.push(serverHeading(server), text.render(server, options));
    }
    lines.push(combinedSummaryLine(report));
    return `${lines.join('\n')}\n`;
  },
  render(raw, options) {
    // Everything the target sent is shown escaped, never obeyed (visible.ts); colour codes are ours.
    // Not the plan, nor the `uncalled` it stands for: the plan escapes and bounds what it shows,
    // and a copy of ten thousand megabyte names would not fit in memory.
    const { plan, uncalled, ...rest } = raw;
    const report: RunReport = {
      ...visibleDeep(rest),
      ...(plan === undefined && uncalled !== undefined ? { uncalled: visibleDeep(uncalled) } : {}),
    };
    const lines = [header(report), ''];
    // The target problem is said once, with its exchanges; each probe it ended only points at it.
    const onProblem = report.probes.filter((r) => onTargetProblem(report, r));
    if (report.problem !== undefined) {
      lines.push(`${paint(options.color, '1;33', '! target problem')} ${report.problem}`);
      const first = onProblem[0];
      if (first !== undefined) lines.push(...detailLines(first, options.evidence, () => ''));
      lines.push('');
    }
    for (const r of report.probes)
      lines.push(
        ...(onProblem.includes(r)
          ? [
              `${paint(options.color, STYLE[r.verdict].code, STYLE[r.verdict].label)} ${r.id}  ${TARGET_PROBLEM_REASON}`,
            ]
          : probeBlock(r, options)),
      );
    if (report.probes.length > 0) lines.push('');
    if (report.baseline !== undefined && report.baseline.stale.length > 0)
      lines.push(...staleLines(report.baseline, options), '');
    const notReached = report.surface?.notReached ?? [];
    if (notReached.length > 0) {
      lines.push(`not reached by discovery (${notReached.length}):`);
      for (const n of notReached) lines.push(`    ${n.tool}: ${n.why}`);
      lines.push(cutShortSentence(notReached) ?? '', '');
    }
    if (report.created !== undefined) {
      lines.push(`created by this scan (${report.created.total}):`);
      for (const item of report.created.items) lines.push(`    ${createdItem(item)}`);
      lines.push(createdSentence(report.created), '');
    }
    if (plan !== undefined) {
      // The plan says what was left alone (and why, and the flag): `uncalled` is not said again.
      // Read from the raw report: the plan escapes and bounds what it shows itself.
      const rows = options.all === true ? 'all' : 'left alone';
      const bounds = { ...PLAN_BOUNDS, maxRows: TEXT_PLAN_ROWS };
      lines.push(...planLines(plan, { color: options.color, rows, indent: '    ', bounds }), '');
    } else if (report.uncalled !== undefined && report.uncalled.length > 0) {
      lines.push(`not called (${report.uncalled.length}):`);
      for (const u of report.uncalled) lines.push(`    ${u.tool}: ${u.why}`);
      lines.push('');
    }
    if (report.shed !== undefined) lines.push(shedLine(report.shed), '');
    const requests = requestsLine(report);
    if (requests !== undefined) lines.push(requests, '');
    lines.push(summaryLine(report));
    return `${lines.join('\n')}\n`;
  },
} satisfies Reporter;
