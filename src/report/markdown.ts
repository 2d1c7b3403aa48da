/**
 * Markdown for a pull-request comment or a job summary: a header, the verdict of every probe in one
 * table, and for each confirmed finding its reason and the decisive exchanges, short. Everything the
 * target sent is hostile: it is made visible (control and bidi characters escaped, as in text), its
 * Markdown and HTML metacharacters escaped, and kept out of links, so nothing it says can format,
 * link, hide or inject anything in the rendered comment.
 */

import { shownReason } from './headline.js';
import { cutShortSentence } from '../probe/model/surface-map.js';
import { createdSentence } from './created.js';
import { STALE_REASON } from '../probe/runner/baseline.js';
import type { CallPlan } from '../probe/model/tools.js';
import type { CombinedReport, ProbeResult, RunReport } from '../probe/model/report.js';
import { detailLines } from './evidence-lines.js';
import { requestsLine, summaryLine } from './text.js';
import {
  cell,
  combinedSummaryLine,
  notScannedReasons,
  registryLine,
  matrixProbes,
  serverName,
  serverStatus,
  type Cell,
  type ServerStatus,
} from './matrix.js';
import {
  clipRaw,
  decidingEvidence,
  decisionOf,
  isCalled,
  PLAN_RULE,
  planCounts,
  planRows,
} from './plan.js';
import type { RenderOptions, Reporter } from './types.js';
import { visible } from './visible.js';

const ICON = { confirmed: '❌', refuted: '✅', skipped: '➖', errored: '⚠️' } as const;
/** Most evidence lines shown under one finding: a comment must stay short. */
const MAX_LINES = 8;

/**
 * `s` as inert Markdown text: visible characters, HTML and Markdown metacharacters escaped (a
 * backslash before each, `<` and `>` and `&` as entities), and lines folded into one, so a table
 * cell stays one cell and no heading, list, link, image, HTML or code span can start in it.
 */
export function inertMarkdown(s: string): string {
  return (
    visible(s)
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      .replace(/([\\`*_{}[\]#+!|~])/g, '\\$1')
      // No autolink either: a bare URL the target wrote must not become a link in the comment.
      .replace(/:\/\//g, ':&#47;&#47;')
      .replace(/\bwww\./gi, (m) => `${m.slice(0, 3)}&#46;`)
      .replace(/\r?\n/g, ' ')
  );
}

function finding(r: ProbeResult, o: RenderOptions): string[] {
  const lines = [
    `### ${ICON.confirmed} ${inertMarkdown(r.flaw)} (\`${r.id}\`)${r.baselined === true ? ' (baselined)' : ''}`,
    '',
    inertMarkdown(r.reason),
  ];
  if (o.evidence === 'none') return lines;
  const detail = detailLines(r, 'summary', (held) => (held ? '✓' : '✗'))
    .map((l) => l.trim())
    .filter((l) => l.length > 0);
  const shown = detail.slice(0, MAX_LINES).map((l) => `- ${inertMarkdown(l)}`);
  if (detail.length > MAX_LINES)
    shown.push(`- … ${detail.length - MAX_LINES} more in the JSON report`);
  return [...lines, '', ...shown];
}

/** Most plan rows of each group (called, left alone) in a report, and in a server's section. */
const MAX_PLAN_ROWS = 40;
const MAX_SERVER_PLAN_ROWS = 20;
/** Widest name, flag and evidence in a plan cell, in code points (before escaping). */
const PLAN_CELL = 80;

/**
 * The call plan: its counts, a table of the rows asked for (kind, name, class, called or left
 * alone with the flag that would call it, the deciding evidence), what was cut, and the rule. The
 * flag names the tool, so it is inert text too, never a code span a backtick could close.
 */
function planSection(plan: CallPlan, rows: 'all' | 'left alone', max: number): string[] {
  const out = [`**Call plan:** ${planCounts(plan)}`];
  const { shown, cuts } = planRows(plan, rows, max);
  if (shown.length === 0) return out;
  out.push('', '| kind | name | class | call | evidence |', '| --- | --- | --- | --- | --- |');
  for (const e of shown) {
    const { first, more } = decidingEvidence(e);
    const evidence =
      first === undefined
        ? '—'
        : `${inertMarkdown(clipRaw(first, PLAN_CELL * 2))}${more > 0 ? ` (+${more} more)` : ''}`;
    const call = isCalled(e)
      ? `✅ ${inertMarkdown(clipRaw(decisionOf(e), PLAN_CELL))}`
      : `⏸️ **left alone**${e.reach === undefined ? '' : `: ${inertMarkdown(decisionOf(e, PLAN_CELL).replace(/^left alone: /, ''))}`}`;
    out.push(
      `| ${inertMarkdown(clipRaw(e.kind, PLAN_CELL))} | ${inertMarkdown(clipRaw(e.name, PLAN_CELL))} | ${inertMarkdown(clipRaw(e.class, PLAN_CELL))} | ${call} | ${evidence} |`,
    );
  }
  // Each its own paragraph; the rule's `<name>` escaped like any text.
  out.push('', ...cuts.flatMap((c) => [inertMarkdown(c), '']), inertMarkdown(PLAN_RULE));
  return out;
}

const CELL_ICON: Record<Cell, string> = { ...ICON, baselined: '☑️', '-': '—' };
const STATUS_ICON: Record<ServerStatus, string> = {
  confirmed: '❌',
  errored: '⚠️',
  'not started': '⚠️',
  'not scanned': '➖',
  clean: '✅',
};

/** The registry's counts and the reasons entries were not scanned for, as a paragraph and a list. */
function registryMarkdown(report: CombinedReport): string[] {
  const line = registryLine(report);
  if (line === undefined) return [];
  const reasons = notScannedReasons(report).map((r) => `- not scanned: ${inertMarkdown(r)}`);
  return [inertMarkdown(line), '', ...(reasons.length > 0 ? [...reasons, ''] : [])];
}

/** The server × probe matrix (icons, to stay narrow), problems, and each confirmed finding. */
function combined(report: CombinedReport, o: RenderOptions): string {
  const ids = matrixProbes(report);
  const out = [
    `## stateguard: ${report.servers.length} servers`,
    '',
    inertMarkdown(combinedSummaryLine(report)),
    '',
    ...registryMarkdown(report),
    `| server | via | ${ids.map((id) => `\`${id}\``).join(' | ')} | result |`,
    `| --- | --- | ${ids.map(() => '---').join(' | ')} | --- |`,
  ];
  for (const server of report.servers) {
    const status = serverStatus(server);
    out.push(
      `| ${inertMarkdown(serverName(server))} | ${server.target.kind} | ${ids.map((id) => CELL_ICON[cell(server, id)]).join(' | ')} | ${STATUS_ICON[status]} ${status} |`,
    );
  }
  out.push('', `❌ confirmed · ✅ refuted · ➖ skipped · ⚠️ errored · ☑️ baselined · — not run`);
  const where = (server: RunReport): string => {
    const s = server.server;
    return s === undefined ? '' : ` (${inertMarkdown(s.file)}:${s.line})`;
  };
  for (const server of report.servers) {
    if (server.problem !== undefined)
      out.push(
        '',
        `**${inertMarkdown(serverName(server))}**${where(server)}: ${inertMarkdown(server.problem)}`,
      );
  }
  for (const server of report.servers) {
    const confirmed = server.probes.filter((r) => r.verdict === 'confirmed');
    const stale = server.baseline?.stale ?? [];
    const { plan } = server;
    const { created } = server;
    if (confirmed.length === 0 && stale.length === 0 && plan === undefined && created === undefined)
      continue;
    out.push('', `### ${inertMarkdown(serverName(server))}${where(server)}`);
    for (const entry of stale)
      out.push(
        '',
        `⚠️ stale baseline entry ${inertMarkdown(entry)}: ${inertMarkdown(STALE_REASON)}`,
      );
    // One heading level down from the single-server report's findings.
    for (const r of confirmed)
      out.push('', ...finding(r, o).map((l) => (l.startsWith('### ') ? `#${l}` : l)));
    // A server's plan in short: its counts and what it left alone (every entry with --all).
    if (plan !== undefined)
      out.push(
        '',
        ...planSection(plan, o.all === true ? 'all' : 'left alone', MAX_SERVER_PLAN_ROWS),
      );
    if (created !== undefined)
      out.push(
        '',
        inertMarkdown(createdSentence(created)),
        '',
        ...created.items.map((c) => `- \`${inertMarkdown(c.tool)}\` → ${inertMarkdown(c.value)}`),
      );
  }
  return `${out.join('\n')}\n`;
}

/** The Markdown reporter. */
export const markdown = {
  id: 'markdown',
  renderCombined: combined,
  render(report: RunReport, o: RenderOptions): string {
    const out = [
      `## stateguard: ${inertMarkdown(report.target.display)}`,
      '',
      inertMarkdown(summaryLine(report)),
      '',
    ];
    if (report.problem !== undefined) out.push(`**Problem:** ${inertMarkdown(report.problem)}`, '');
    const requests = requestsLine(report);
    if (requests !== undefined) out.push(inertMarkdown(requests), '');
    out.push('| probe | verdict | reason |', '| --- | --- | --- |');
    for (const r of report.probes) {
      const accepted = r.baselined === true ? ' (baselined)' : '';
      out.push(
        `| \`${r.id}\` | ${ICON[r.verdict]} ${r.verdict}${accepted} | ${inertMarkdown(shownReason(report, r))} |`,
      );
    }
    for (const entry of report.baseline?.stale ?? [])
      out.push(
        `| ${inertMarkdown(entry)} | ⚠️ stale baseline entry | ${inertMarkdown(STALE_REASON)} |`,
      );
    const cut = cutShortSentence(report.surface?.notReached);
    if (cut !== undefined) out.push('', inertMarkdown(cut));
    if (report.created !== undefined) {
      out.push('', `**Created by this scan (${report.created.total})**`, '');
      out.push('| tool | id or handle it handed out |', '| --- | --- |');
      for (const item of report.created.items)
        out.push(`| \`${inertMarkdown(item.tool)}\` | ${inertMarkdown(item.value)} |`);
      out.push('', inertMarkdown(createdSentence(report.created)));
    }
    const uncalled = report.uncalled ?? [];
    // The plan says what was left alone, why and the flag: `uncalled` is not said twice.
    if (report.plan !== undefined) out.push('', ...planSection(report.plan, 'all', MAX_PLAN_ROWS));
    else if (uncalled.length > 0) {
      out.push('', `**Not called (${uncalled.length})**, left alone to harm nothing:`, '');
      out.push('| tool | why | flag that would call it |', '| --- | --- | --- |');
      for (const u of uncalled)
        out.push(
          `| ${inertMarkdown(u.tool)} | ${inertMarkdown(u.why)} | \`${u.flag ?? '--include-destructive'}\` |`,
        );
    }
    const confirmed = report.probes.filter((r) => r.verdict === 'confirmed');
    for (const r of confirmed) out.push('', ...finding(r, o));
    return `${out.join('\n')}\n`;
  },
} satisfies Reporter;
