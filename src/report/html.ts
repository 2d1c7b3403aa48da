/**
 * One self-contained HTML page: the verdicts in a table up top, then each probe with its controls,
 * observations and exchanges drawn as a sequence between the lanes A, B and the server, the
 * decisive exchange highlighted and the raw JSON of each folded in a `<details>`.
 *
 * The page loads nothing and runs nothing: the styles are inline, there is no script, and a
 * Content-Security-Policy `<meta>` forbids every fetch, script, frame, form and `<base>`, so even a
 * mistake in the escaping below could neither run code nor reach the network. Everything the target
 * sent is text and only text: it goes through {@link escapeHtml} (control and bidi characters made
 * visible as in the text report, then `& < > " '` as entities) and only ever into element content,
 * never into a URL, a style, or an attribute. Ids and classes are built from indices and verdicts.
 */
import { headline, onTargetProblem, shownReason, TARGET_PROBLEM_REASON } from './headline.js';
import { cutShortSentence } from '../probe/model/surface-map.js';
import { createdSentence } from './created.js';
import { STALE_REASON } from '../probe/runner/baseline.js';
import type { CallPlan } from '../probe/model/tools.js';
import type { CombinedReport, ProbeResult, RunReport } from '../probe/model/report.js';
import type { Evidence } from '../probe/model/evidence.js';
import type { Verdict } from '../probe/model/probe.js';
import { CALL_CLASSES } from '../probe/model/tools.js';
import { VERDICTS } from '../probe/model/probe.js';
import {
  answerMessage,
  evidenceLine,
  exchangeSummary,
  type ExchangeEvidence,
} from './evidence-lines.js';
import {
  clipRaw,
  decisionOf,
  isCalled,
  PLAN_RULE,
  planHeadline,
  planRows,
  reachOf,
} from './plan.js';
import { notScannedReasons, registryLine } from './matrix.js';
import { protocolEra, summaryLine } from './text.js';
import type { EvidenceMode, RenderOptions, Reporter } from './types.js';
import { escapeJsonText, visible } from './visible.js';

const ENTITY: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/**
 * `s` as HTML text, safe in element content and in a quoted attribute value alike: control and
 * bidi characters written as visible escapes ({@link visible}), then `& < > " '` as entities.
 */
export function escapeHtml(s: string): string {
  return visible(s).replace(/[&<>"']/g, (c) => ENTITY[c] ?? c);
}

/** Raw JSON for a `<pre>`: the exact value, DEL/C1/bidi spelled `\u…`, then HTML-escaped. */
const rawJson = (value: unknown): string =>
  escapeHtml(escapeJsonText(JSON.stringify(value, null, 2)));

/** The verdict badge: a symbol and the word, so colour is never the only signal. */
const MARK: Record<Verdict, string> = { confirmed: '✗', refuted: '✓', skipped: '–', errored: '!' };
const badge = (v: Verdict, extra = ''): string =>
  `<span class="badge v-${v}">${MARK[v]} ${v}${extra}</span>`;

const PROBLEM = '<span class="badge v-errored">! target problem</span>';

const isExchange = (e: Evidence): e is ExchangeEvidence =>
  e.kind === 'http' || e.kind === 'jsonrpc';

const words = (s: string): string[] =>
  s
    .toLowerCase()
    .split(/\s+/)
    .map((w) => w.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, ''))
    .filter((w) => w.length > 0);

/** How an exchange was answered, as the probes read it. */
type Reading = 'failure' | 'refusal' | 'ask' | 'acceptance';

function reading(e: ExchangeEvidence): Reading {
  const answer = answerMessage(e.received);
  if (e.error !== undefined || answer === undefined) return 'failure';
  const result = answer.result as { isError?: unknown; resultType?: unknown } | undefined;
  if ('error' in answer || result?.isError === true) return 'refusal';
  return /^input[_-]required$/i.test(String(result?.resultType)) ? 'ask' : 'acceptance';
}

/** The readings a verdict rests on (a skipped probe rests on none). */
const RESTS_ON: Record<Verdict, readonly Reading[]> = {
  confirmed: ['refusal', 'acceptance'],
  refuted: ['refusal'],
  errored: ['failure'],
  skipped: [],
};

/**
 * The index in `r.evidence` of the exchange the verdict rests on, or `undefined` (skipped, or no
 * exchange at all). Evidence does not mark it, so it is read from the data:
 * - the candidates are the exchanges answered the way the verdict rests on: for `errored`, those
 *   that drew no decision (a timeout, a 5xx, a dropped connection…); for `refuted`, the refusals (a
 *   JSON-RPC error or an `isError` result); for `confirmed`, every decided answer but a round-1
 *   `input_required` ask (a flow is decided on its retry). When no exchange fits, every decided
 *   answer is a candidate, and then every exchange;
 * - of those, the one whose label the verdict's reason echoes most: the share of the label's words
 *   that the reason uses (probes name their decisive call in the reason: "call 2 sent with call 1's
 *   state", "B presents A's handle", "the final round again");
 * - ties go to the later exchange (a probe decides after its last call), and with no word in
 *   common the last candidate is taken.
 */
export function decisiveIndex(r: ProbeResult): number | undefined {
  if (r.verdict === 'skipped') return undefined;
  const exchanges = r.evidence
    .map((e, i) => ({ e, i }))
    .filter((x): x is { e: ExchangeEvidence; i: number } => isExchange(x.e))
    .map(({ e, i }) => ({ e, i, reading: reading(e) }));
  const wanted = RESTS_ON[r.verdict];
  const pools = [
    exchanges.filter((x) => wanted.includes(x.reading)),
    exchanges.filter((x) => x.reading !== 'failure'),
    exchanges,
  ];
  const candidates = pools.find((pool) => pool.length > 0) ?? [];
  const reason = new Set(words(r.reason));
  let best: { index: number; score: number } | undefined;
  for (const { e, i } of candidates) {
    const label = [...new Set(words(e.label))];
    const score = label.length === 0 ? 0 : label.filter((w) => reason.has(w)).length / label.length;
    if (best === undefined || score >= best.score) best = { index: i, score };
  }
  return best?.index;
}

/** A `<dl>` row per entry; entries whose value is undefined are left out. */
function facts(rows: [term: string, html: string | undefined][]): string {
  const shown = rows.filter((row): row is [string, string] => row[1] !== undefined);
  return `<dl class="facts">${shown.map(([t, d]) => `<dt>${t}</dt><dd>${d}</dd>`).join('')}</dl>`;
}

/** A list of target strings, each escaped, or "none". */
function list(items: readonly string[] | undefined, code = true): string {
  if (items === undefined || items.length === 0) return '<span class="muted">none</span>';
  const item = (s: string): string => (code ? `<code>${escapeHtml(s)}</code>` : escapeHtml(s));
  return `<ul class="inline">${items.map((s) => `<li>${item(s)}</li>`).join('')}</ul>`;
}

/** Most plan rows of each group (called, left alone) on a page. */
const MAX_PLAN_ROWS = 1000;
/** Widest name or flag, and piece of evidence, in code points (before escaping). */
const PLAN_NAME = 200;
const PLAN_EVIDENCE = 300;
/** Most pieces of evidence shown of one entry. */
const PLAN_PIECES = 5;
/**
 * The widest kind, class or grant. Ours, but a JSON report fed back in is a file like any other:
 * they are escaped too, and only a known class names a CSS class.
 */
const PLAN_WORD = 40;

/**
 * The call plan: its counts, one row per entry (called first, then left alone), each left-alone
 * row marked in words and colour with the flag that would call it, the deciding evidence first
 * and in bold; what was cut, and the rule. Names, flags and evidence are the target's: escaped.
 */
function planSection(plan: CallPlan, id: string, h: number): string {
  const { shown, cuts } = planRows(plan, 'all', MAX_PLAN_ROWS);
  const rows = shown.map((e) => {
    const pieces = e.evidence
      .slice(0, PLAN_PIECES)
      .map((p) => escapeHtml(clipRaw(p, PLAN_EVIDENCE)));
    const more = e.evidence.length - pieces.length;
    const evidence =
      pieces.length === 0
        ? '<span class="muted">no evidence</span>'
        : `<ul class="evidence">${pieces.map((p, i) => `<li>${i === 0 ? `<strong>${p}</strong>` : p}</li>`).join('')}${more > 0 ? `<li class="muted">+${more} more</li>` : ''}</ul>`;
    const reach = reachOf(e, PLAN_NAME);
    const call = isCalled(e)
      ? `<span class="ok">✓ called</span> <span class="muted">${escapeHtml(clipRaw(decisionOf(e).replace(/^called /, ''), PLAN_WORD))}</span>`
      : `<span class="badge left">left alone</span>${reach === undefined ? '' : ` <code class="reach">${escapeHtml(reach)}</code>`}`;
    return (
      `<tr class="${isCalled(e) ? 'called' : 'left'}"><td>${escapeHtml(clipRaw(e.kind, PLAN_WORD))}</td>` +
      `<th scope="row"><code>${escapeHtml(clipRaw(e.name, PLAN_NAME))}</code></th>` +
      `<td><span class="cls c-${CALL_CLASSES.includes(e.class) ? e.class : 'unknown'}">${escapeHtml(clipRaw(e.class, PLAN_WORD))}</span></td>` +
      `<td>${call}</td><td>${evidence}</td></tr>`
    );
  });
  const table =
    rows.length === 0
      ? ''
      : `<table class="plan"><caption>What the scan may call, decided before any call</caption>` +
        `<thead><tr><th scope="col">kind</th><th scope="col">name</th><th scope="col">class</th><th scope="col">call</th><th scope="col">evidence</th></tr></thead>` +
        `<tbody>${rows.join('\n')}</tbody></table>`;
  return [
    `<h${h} id="${id}-plan">Call plan</h${h}>`,
    `<p class="plan-counts">${escapeHtml(planHeadline(plan))}</p>`,
    table,
    ...cuts.map((c) => `<p class="muted">${escapeHtml(c)}</p>`),
    `<p class="rule">${escapeHtml(PLAN_RULE)}</p>`,
  ]
    .filter((p) => p !== '')
    .join('\n');
}

/** What the target is and said about itself, what discovery found, what was left alone. */
function targetSection(report: RunReport, id: string, h: number): string {
  const p = report.protocol;
  const parts = [`<h${h} id="${id}-target">Target</h${h}>`, facts(targetFacts(report))];
  if (p.deviations !== undefined && p.deviations.length > 0) {
    parts.push(
      `<h${h + 1}>Protocol deviations (${p.deviations.length})</h${h + 1}>`,
      `<ul>${p.deviations.map((d) => `<li>${escapeHtml(d)}</li>`).join('')}</ul>`,
    );
  }
  if (report.surface !== undefined) parts.push(...surfaceParts(report.surface, h + 1));
  if (report.created !== undefined) parts.push(...createdParts(report.created, id, h + 1));
  // The plan says what was left alone, why and the flag: `uncalled` is not said twice.
  if (report.plan !== undefined) parts.push(planSection(report.plan, id, h + 1));
  else if (report.uncalled !== undefined && report.uncalled.length > 0)
    parts.push(...uncalledParts(report.uncalled, h + 1));
  if (report.baseline !== undefined) parts.push(...baselineParts(report.baseline, h + 1));
  return parts.join('\n');
}

/** The target's facts: how it was reached, where it was declared, what it said about itself. */
function targetFacts(report: RunReport): [string, string | undefined][] {
  const p = report.protocol;
  const server =
    p.serverInfo === undefined
      ? undefined
      : escapeHtml(`${p.serverInfo.name ?? '?'} ${p.serverInfo.version ?? ''}`.trimEnd());
  const s = report.server;
  return [
    [
      'target',
      `<code>${escapeHtml(report.target.display)}</code> (${escapeHtml(report.target.kind)})`,
    ],
    [
      'declared in',
      s &&
        `<code>${escapeHtml(s.file)}</code> line ${s.line}, entry <code>${escapeHtml(s.name)}</code> (${escapeHtml(s.format)})`,
    ],
    ['protocol', escapeHtml(protocolEra(report.protocol))],
    ['server', server],
    ['tools', list(p.toolNames)],
    ['prompts', p.promptNames && list(p.promptNames)],
    ['resources', p.resources && list(p.resources)],
    ['resource templates', p.resourceTemplates && list(p.resourceTemplates)],
    ['started', `${escapeHtml(report.startedAt)}, ${report.ms} ms`],
  ];
}

function surfaceParts(sf: NonNullable<RunReport['surface']>, h: number): string[] {
  const parts = [
    `<h${h}>Surface found by discovery</h${h}>`,
    facts([
      ['handles', list(sf.handles)],
      ['flows', list(sf.flows)],
      ['tried', list(sf.tried, false)],
    ]),
  ];
  const cut = cutShortSentence(sf.notReached);
  if (cut !== undefined) parts.push(`<p class="reason">${escapeHtml(cut)}</p>`);
  return parts;
}

function createdParts(created: NonNullable<RunReport['created']>, id: string, h: number): string[] {
  const rows = created.items
    .map(
      (c) =>
        `<tr><td><code>${escapeHtml(c.tool)}</code></td><td><code>${escapeHtml(c.value)}</code></td></tr>`,
    )
    .join('');
  return [
    `<h${h} id="${id}-created">Created by this scan (${created.total})</h${h}>`,
    `<p>${escapeHtml(createdSentence(created))}</p>`,
    `<table class="created"><thead><tr><th scope="col">tool</th><th scope="col">id or handle it handed out</th></tr></thead><tbody>${rows}</tbody></table>`,
  ];
}

function uncalledParts(uncalled: NonNullable<RunReport['uncalled']>, h: number): string[] {
  const rows = uncalled
    .map((u) => `<tr><td><code>${escapeHtml(u.tool)}</code></td><td>${escapeHtml(u.why)}</td></tr>`)
    .join('');
  return [
    `<h${h}>Not called (${uncalled.length})</h${h}>`,
    `<table><thead><tr><th scope="col">tool</th><th scope="col">why</th></tr></thead><tbody>${rows}</tbody></table>`,
  ];
}

function baselineParts(b: NonNullable<RunReport['baseline']>, h: number): string[] {
  return [
    `<h${h}>Baseline</h${h}>`,
    facts([
      ['file', `<code>${escapeHtml(b.file)}</code>`],
      ['accepted', list(b.baselined)],
      [
        'stale',
        b.stale.length === 0
          ? list(b.stale)
          : `${list(b.stale)}<p class="stale">${badge('confirmed', ' stale')} ${escapeHtml(STALE_REASON)}; remove ${b.stale.length === 1 ? 'it' : 'them'} from the file (a stale entry fails the run)</p>`,
      ],
    ]),
  ];
}

/**
 * Where a result stands on the page: what needs action first. A confirmed finding the baseline does
 * not accept, then an accepted one, then what could not decide (errored, then a probe the user's
 * word would decide), then refuted, then skipped. A 12,000 px scroll to the one finding is a finding
 * missed.
 */
function actionRank(r: ProbeResult): number {
  if (r.verdict === 'confirmed') return r.baselined === true ? 1 : 0;
  if (r.verdict === 'errored') return 2;
  if (r.verdict === 'skipped' && (r.decideWith?.length ?? 0) > 0) return 3;
  return r.verdict === 'refuted' ? 4 : 5;
}

/**
 * The run's results in {@link actionRank} order, each with its index in the report (its anchor
 * `…-p<index>` stays the same whatever the order). Stable: the registry's order within a rank.
 */
function byAction(report: RunReport): [ProbeResult, number][] {
  return report.probes
    .map((r, i): [ProbeResult, number] => [r, i])
    .sort(([a, i], [b, j]) => actionRank(a) - actionRank(b) || i - j);
}

/** `2 confirmed findings need action: the first ↓`, linked to its card; empty when none. */
function confirmedLead(report: RunReport, id: string): string {
  const confirmed = byAction(report).filter(([r]) => r.verdict === 'confirmed');
  const first = confirmed[0];
  if (first === undefined) return '';
  const open = confirmed.filter(([r]) => r.baselined !== true).length;
  const n = confirmed.length;
  const what = `${n} confirmed finding${n === 1 ? '' : 's'}${open < n ? ` (${n - open} accepted by the baseline)` : ''}`;
  return `<p class="lead">${badge('confirmed')} <a href="#${id}-p${first[1]}">${escapeHtml(what)}: see the first</a></p>`;
}

/** The verdict table of one run: one row per probe, linked to its section, what needs action first. */
function verdictTable(report: RunReport, id: string): string {
  const rows = byAction(report).map(([r, i]) => {
    const accepted = r.baselined === true ? ' <span class="muted">(baselined)</span>' : '';
    return (
      `<tr class="v-${r.verdict}"><th scope="row"><a href="#${id}-p${i}"><code>${escapeHtml(r.id)}</code></a></th>` +
      `<td>${badge(r.verdict)}${accepted}</td><td>${escapeHtml(r.severity)}</td><td>${escapeHtml(shownReason(report, r))}</td></tr>`
    );
  });
  for (const entry of report.baseline?.stale ?? [])
    rows.push(
      `<tr class="v-confirmed"><th scope="row"><code>${escapeHtml(entry)}</code></th><td>${badge('confirmed', ' stale')}</td><td></td><td>stale baseline entry: ${escapeHtml(STALE_REASON)}</td></tr>`,
    );
  if (rows.length === 0) return '<p class="muted">No probe ran.</p>';
  return (
    `<table class="matrix"><caption>Verdict of each probe</caption>` +
    `<thead><tr><th scope="col">probe</th><th scope="col">verdict</th><th scope="col">severity</th><th scope="col">reason</th></tr></thead>` +
    `<tbody>${rows.join('\n')}</tbody></table>`
  );
}

const lane = (e: ExchangeEvidence): string => (e.identity === 'B' ? 'b' : 'a');

/** One exchange as two arrows (request, answer), its label, and its raw JSON folded. */
function exchangeItem(
  e: ExchangeEvidence,
  n: number,
  decisive: boolean,
  mode: EvidenceMode,
): string {
  const who = e.identity ?? 'scanner';
  const { sent, answer } = exchangeSummary(e);
  const failed = e.error !== undefined ? ' failed' : '';
  const mark = decisive ? ' <strong class="decisive-tag">decisive</strong>' : '';
  const open = mode === 'full' ? ' open' : '';
  return (
    `<li class="ex lane-${lane(e)}${decisive ? ' decisive' : ''}">` +
    `<p class="cap"><span class="n">${n}.</span> ${escapeHtml(e.label)} <span class="muted">(${e.ms} ms)</span>${mark}</p>` +
    `<p class="msg req"><span class="who">${who} → server</span> <span class="txt">${escapeHtml(sent)}</span></p>` +
    `<p class="msg ans${failed}"><span class="who">server → ${who}</span> <span class="txt">${escapeHtml(answer)}</span></p>` +
    `<details${open}><summary>raw JSON</summary><pre>${rawJson(e)}</pre></details>` +
    `</li>`
  );
}

/** Anything else in the evidence (a note, an observation, stderr), as a note across the lanes. */
function noteItem(e: Exclude<Evidence, ExchangeEvidence>, mode: EvidenceMode): string {
  if (e.kind === 'stderr') {
    const open = mode === 'full' ? ' open' : '';
    return `<li class="note"><details${open}><summary>${escapeHtml(evidenceLine(e))}</summary><pre>${escapeHtml(e.lines.join('\n'))}</pre></details></li>`;
  }
  return `<li class="note"><p>${escapeHtml(evidenceLine(e))}</p></li>`;
}

/** Evidence drawn as a sequence between A, B and the server. */
function sequence(
  evidence: readonly Evidence[],
  decisive: number | undefined,
  mode: EvidenceMode,
): string {
  let n = 0;
  const items = evidence.map((e, i) =>
    isExchange(e) ? exchangeItem(e, ++n, i === decisive, mode) : noteItem(e, mode),
  );
  return (
    `<div class="seq"><div class="lanes" aria-hidden="true"><span>A</span><span>B</span><span>server</span></div>` +
    `<ol class="steps">${items.join('\n')}</ol></div>`
  );
}

function probeSection(
  report: RunReport,
  r: ProbeResult,
  id: string,
  h: number,
  mode: EvidenceMode,
): string {
  if (onTargetProblem(report, r))
    return (
      `<section class="probe v-${r.verdict}" id="${id}" aria-labelledby="${id}-h">` +
      `<h${h} id="${id}-h">${badge(r.verdict)} <code>${escapeHtml(r.id)}</code> <span class="title">${escapeHtml(headline(r))}</span></h${h}>` +
      `<p class="reason">${escapeHtml(TARGET_PROBLEM_REASON)}</p></section>`
    );
  const parts = [
    `<section class="probe v-${r.verdict}" id="${id}" aria-labelledby="${id}-h">`,
    `<h${h} id="${id}-h">${badge(r.verdict)} <code>${escapeHtml(r.id)}</code> <span class="title">${escapeHtml(headline(r))}</span></h${h}>`,
    `<p class="reason">${escapeHtml(r.reason)}</p>`,
    `<p class="muted">severity ${escapeHtml(r.severity)} · ${r.ms} ms${r.baselined === true ? ' · baselined: accepted by the baseline, does not fail the run' : ''}</p>`,
  ];
  const controls = Object.entries(r.controls);
  if (controls.length > 0) {
    const rows = controls.map(
      ([name, c]) =>
        `<tr class="${c.held ? 'held' : 'failed'}"><th scope="row"><code>${escapeHtml(name)}</code></th>` +
        `<td>${c.held ? '<span class="ok">✓ held</span>' : '<span class="bad">✗ failed</span>'}</td>` +
        `<td>${escapeHtml(c.expected)}</td><td>${escapeHtml(c.observed)}</td></tr>`,
    );
    parts.push(
      `<table class="controls"><caption>Controls</caption><thead><tr><th scope="col">control</th><th scope="col">state</th><th scope="col">expected</th><th scope="col">observed</th></tr></thead><tbody>${rows.join('')}</tbody></table>`,
    );
  }
  if (r.observations.length > 0) {
    const items = r.observations.map(
      (o) => `<li><strong>${escapeHtml(o.label)}</strong>: ${escapeHtml(o.detail)}</li>`,
    );
    parts.push(`<h${h + 1}>Observations</h${h + 1}>`, `<ul>${items.join('')}</ul>`);
  }
  if (mode !== 'none' && r.evidence.length > 0) {
    parts.push(
      `<h${h + 1}>Exchanges (${r.evidence.filter(isExchange).length})</h${h + 1}>`,
      sequence(r.evidence, decisiveIndex(r), mode),
    );
  }
  parts.push('</section>');
  return parts.join('\n');
}

/** Everything of one run below its heading: problem, verdicts, target, probes. */
function runBody(report: RunReport, id: string, h: number, mode: EvidenceMode): string {
  const parts = [`<p class="summary">${escapeHtml(summaryLine(report))}</p>`];
  const lead = confirmedLead(report, id);
  if (lead !== '') parts.push(lead);
  if (report.problem !== undefined) {
    parts.push(`<p class="problem">${PROBLEM} ${escapeHtml(report.problem)}</p>`);
    // Said once, with the exchanges that show it; each probe it ended points here.
    const first = report.probes.find((r) => onTargetProblem(report, r));
    if (first !== undefined && mode !== 'none' && first.evidence.length > 0)
      parts.push(sequence(first.evidence, decisiveIndex(first), mode));
  }
  parts.push(verdictTable(report, id), targetSection(report, id, h));
  if (mode !== 'none' && report.surface !== undefined && report.surface.evidence.length > 0) {
    parts.push(
      `<details class="discovery"${mode === 'full' ? ' open' : ''}><summary>Discovery exchanges (${report.surface.evidence.length})</summary>${sequence(report.surface.evidence, undefined, mode)}</details>`,
    );
  }
  if (report.probes.length > 0) {
    parts.push(`<h${h} id="${id}-probes">Probes</h${h}>`);
    for (const [r, i] of byAction(report))
      parts.push(probeSection(report, r, `${id}-p${i}`, h + 1, mode));
  }
  return parts.join('\n');
}

/**
 * Nothing may load, run, submit or re-base the page: `default-src 'none'` covers scripts, images,
 * fonts, frames and fetches; inline styles are the one exception; `base-uri` and `form-action` do
 * not fall back to `default-src`, so they are named. (`frame-ancestors` and `sandbox` are ignored in
 * a `<meta>` policy, and Chromium logs an error for the former, so neither is written.)
 */
const CSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'";

const STYLE = `
:root{color-scheme:light dark;--bg:#fff;--fg:#1b1f24;--muted:#59636e;--line:#d1d9e0;--panel:#f6f8fa;
--confirmed:#b3261e;--confirmed-bg:#fde7e6;--refuted:#1a7f37;--refuted-bg:#dafbe1;--skipped:#59636e;--skipped-bg:#eaeef2;
--errored:#8a5a00;--errored-bg:#fff1c2;--a:#0958b8;--b:#8250df;--hl:#fff8c5;--hl-line:#bf8700}
@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--fg:#e6edf3;--muted:#9198a1;--line:#3d444d;--panel:#151b23;
--confirmed:#ff8b84;--confirmed-bg:#4a1714;--refuted:#56d364;--refuted-bg:#0f3a1c;--skipped:#9198a1;--skipped-bg:#262c36;
--errored:#e3b341;--errored-bg:#3d2e00;--a:#79c0ff;--b:#d2a8ff;--hl:#3a3000;--hl-line:#e3b341}}
*{box-sizing:border-box}
body{margin:0 auto;max-width:72rem;padding:1rem 1.5rem 3rem;background:var(--bg);color:var(--fg);
font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.9em}
code,.txt{overflow-wrap:anywhere}
th code{overflow-wrap:normal}
h1{font-size:1.6rem;margin:.5rem 0}h2{font-size:1.3rem;margin-top:2rem;border-bottom:1px solid var(--line)}
h3{font-size:1.1rem}h4,h5{font-size:1rem}
a{color:inherit}
.muted{color:var(--muted)}
table{border-collapse:collapse;width:100%;margin:.5rem 0 1rem}
caption{text-align:left;font-weight:600;padding:.25rem 0}
th,td{border:1px solid var(--line);padding:.3rem .5rem;text-align:left;vertical-align:top}
thead th{background:var(--panel)}
.badge{display:inline-block;padding:0 .45rem;border-radius:.3rem;font-weight:600;white-space:nowrap;border:1px solid currentColor}
.badge.v-confirmed{color:var(--confirmed);background:var(--confirmed-bg)}
.badge.v-refuted{color:var(--refuted);background:var(--refuted-bg)}
.badge.v-skipped{color:var(--skipped);background:var(--skipped-bg)}
.badge.v-errored{color:var(--errored);background:var(--errored-bg)}
.ok,.bad{font-weight:600;white-space:nowrap}.ok{color:var(--refuted)}.bad{color:var(--errored)}
tr.failed td,tr.failed th{background:var(--errored-bg)}
.facts{display:grid;grid-template-columns:max-content 1fr;gap:.2rem 1rem;margin:.5rem 0}
.facts dt{font-weight:600}.facts dd{margin:0}
ul.inline{list-style:none;margin:0;padding:0;display:flex;flex-wrap:wrap;gap:.2rem .8rem}
.summary{font-weight:600}
.problem,.stale{padding:.4rem .6rem;border-left:4px solid var(--errored);background:var(--errored-bg)}
.probe{border:1px solid var(--line);border-left:6px solid var(--skipped);border-radius:.4rem;padding:0 1rem .5rem;margin:1rem 0;break-inside:avoid-page}
.probe.v-confirmed{border-left-color:var(--confirmed)}.probe.v-refuted{border-left-color:var(--refuted)}
.probe.v-errored{border-left-color:var(--errored)}
.reason{font-size:1.05em}
.lead{font-size:1.1em;font-weight:600}
.seq{position:relative;margin:.5rem 0;
background:linear-gradient(var(--line),var(--line)) 16.667% 0/2px 100% no-repeat,
linear-gradient(var(--line),var(--line)) 50% 0/2px 100% no-repeat,
linear-gradient(var(--line),var(--line)) 83.333% 0/2px 100% no-repeat}
.lanes{display:grid;grid-template-columns:repeat(3,1fr);text-align:center;font-weight:700;position:sticky;top:0}
.lanes span{justify-self:center;background:var(--panel);border:1px solid var(--line);border-radius:.3rem;padding:0 1rem}
.lanes span:nth-child(1){color:var(--a)}.lanes span:nth-child(2){color:var(--b)}
.steps{list-style:none;margin:0;padding:0}
.ex,.note{display:grid;grid-template-columns:repeat(6,1fr);margin:.3rem 0;padding:.2rem 0}
.cap,.ex details,.note>*{grid-column:1/7;margin:0;background:var(--bg);padding:0 .3rem;justify-self:start;max-width:100%}
.note>*{justify-self:center;border:1px dashed var(--line);background:var(--panel);padding:.2rem .6rem}
.msg{margin:.1rem 0;position:relative;border-bottom:2px solid var(--a);padding:0 .6rem .1rem;text-align:center}
.lane-b .msg{border-color:var(--b)}
.lane-a .msg{grid-column:2/6}.lane-b .msg{grid-column:4/6}
.msg.req::after,.msg.ans::before{content:"";position:absolute;bottom:-6px;border:5px solid transparent}
.msg.req::after{right:-2px;border-left:9px solid var(--a)}
.msg.ans::before{left:-2px;border-right:9px solid var(--a)}
.lane-b .msg.req::after{border-left-color:var(--b)}.lane-b .msg.ans::before{border-right-color:var(--b)}
.msg.ans{border-bottom-style:dashed}
.msg.ans.failed{color:var(--errored);font-weight:600}
.who{font-weight:600;font-size:.8em;color:var(--muted);white-space:nowrap}
.txt{background:var(--bg);font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.85em}
.decisive{background:var(--hl);outline:2px solid var(--hl-line);border-radius:.3rem}
.decisive .msg.ans{font-weight:700}
.decisive .cap,.decisive .txt,.decisive details{background:transparent}
.decisive-tag{color:var(--hl-line);text-transform:uppercase;font-size:.8em;letter-spacing:.05em}
details>summary{cursor:pointer;color:var(--muted)}
pre{background:var(--panel);border:1px solid var(--line);border-radius:.3rem;padding:.5rem;overflow:auto;max-height:30rem;white-space:pre-wrap;overflow-wrap:anywhere}
.discovery{margin:1rem 0}
.plan tr.left td,.plan tr.left th{background:var(--skipped-bg)}
.plan tr.left th{box-shadow:inset 4px 0 var(--errored)}
.badge.left{color:var(--errored);background:var(--errored-bg)}.reach{display:block;margin-top:.2rem}
.cls{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.9em}
.c-write,.c-outside,.c-destroy{font-weight:600;color:var(--confirmed)}.c-unknown{font-weight:600;color:var(--errored)}
ul.evidence{margin:0;padding-left:1.1rem}
.plan-counts{font-weight:600}.rule{color:var(--muted);font-size:.9em}
footer{margin-top:2rem;color:var(--muted);font-size:.85em}
@media print{body{max-width:none;padding:0;font-size:11pt}.lanes{position:static}
*{-webkit-print-color-adjust:exact;print-color-adjust:exact}pre{max-height:none}}
`;

function page(title: string, body: string, footer: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${CSP}">
<meta name="referrer" content="no-referrer">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>${title}</title>
<style>${STYLE}</style>
</head>
<body>
${body}
<footer>${footer}</footer>
</body>
</html>
`;
}

const footerOf = (tool: RunReport['tool'], startedAt: string): string =>
  `${escapeHtml(tool.name)} ${escapeHtml(tool.version)} · started ${escapeHtml(startedAt)} · every string the target sent is shown as text, control and bidi characters escaped`;

/** The cell of one server's verdict on one probe, linked to that probe's section. */
function matrixCell(run: RunReport, s: number, probe: string): string {
  const i = run.probes.findIndex((r) => r.id === probe);
  const r = run.probes[i];
  if (r === undefined) return '<td class="muted">—</td>';
  const accepted = r.baselined === true ? ' (baselined)' : '';
  return `<td><a href="#s${s}-p${i}">${badge(r.verdict, accepted)}</a></td>`;
}

const serverName = (run: RunReport): string => run.server?.name ?? run.target.display;

/** The registry's counts, and the reasons entries were not scanned for. */
function registryHtml(report: CombinedReport): string[] {
  const line = registryLine(report);
  if (line === undefined) return [];
  const reasons = notScannedReasons(report).map((r) => `<li>not scanned: ${escapeHtml(r)}</li>`);
  return [
    `<p class="registry">${escapeHtml(line)}</p>`,
    ...(reasons.length > 0 ? [`<ul class="not-scanned">${reasons.join('')}</ul>`] : []),
  ];
}

/** The HTML reporter. */
export const html = {
  id: 'html',
  render(report: RunReport, o: RenderOptions): string {
    const body = [
      `<header><h1>stateguard report: <code>${escapeHtml(report.target.display)}</code></h1></header>`,
      `<main>`,
      runBody(report, 'r', 2, o.evidence),
      `</main>`,
    ].join('\n');
    return page(
      `stateguard: ${escapeHtml(report.target.display)}`,
      body,
      footerOf(report.tool, report.startedAt),
    );
  },
  renderCombined(report: CombinedReport, o: RenderOptions): string {
    const probes = [...new Set(report.servers.flatMap((run) => run.probes.map((r) => r.id)))];
    const counts = VERDICTS.map(
      (v) =>
        `${report.servers.flatMap((run) => run.probes).filter((r) => r.verdict === v).length} ${v}`,
    ).join(' · ');
    const problems = report.servers.filter((run) => run.problem !== undefined).length;
    const head = probes.map((id) => `<th scope="col"><code>${escapeHtml(id)}</code></th>`).join('');
    const rows = report.servers.map((run, s) => {
      const problem = run.problem === undefined ? '' : `${PROBLEM} ${escapeHtml(run.problem)}`;
      return (
        `<tr><th scope="row"><a href="#s${s}">${escapeHtml(serverName(run))}</a></th>` +
        probes.map((id) => matrixCell(run, s, id)).join('') +
        `<td>${problem}</td></tr>`
      );
    });
    const sections = report.servers.map(
      (run, s) =>
        `<section class="server" id="s${s}" aria-labelledby="s${s}-h">` +
        `<h2 id="s${s}-h">${escapeHtml(serverName(run))}</h2>\n${runBody(run, `s${s}`, 3, o.evidence)}</section>`,
    );
    const body = [
      `<header><h1>stateguard report: ${report.servers.length} server${report.servers.length === 1 ? '' : 's'}</h1>`,
      `<p>from ${report.configs.map((f) => `<code>${escapeHtml(f)}</code>`).join(', ')}</p>`,
      ...registryHtml(report),
      `<p class="summary">${escapeHtml(counts)}${problems > 0 ? ` · ${problems} server${problems === 1 ? '' : 's'} with a target problem` : ''} · ${report.ms} ms</p></header>`,
      `<main>`,
      `<table class="matrix servers"><caption>Verdict of each probe on each server</caption><thead><tr><th scope="col">server</th>${head}<th scope="col">problem</th></tr></thead><tbody>${rows.join('\n')}</tbody></table>`,
      ...sections,
      `</main>`,
    ].join('\n');
    return page(
      `stateguard: ${report.servers.length} servers`,
      body,
      footerOf(report.tool, report.startedAt),
    );
  },
} satisfies Reporter;
