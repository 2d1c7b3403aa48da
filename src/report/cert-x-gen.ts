/**
 * cert-x-gen: the JSON document a cert-x-gen template prints on stdout, `{"findings": [...],
 * "metadata": {...}}`, so stateguard runs inside that engine where seed 004's template ran.
 *
 * `metadata` describes the template (it matches the header of the shipped template file,
 * `templates/cert-x-gen/`) and carries the run's `status` with a one-line `detail`. The status rule
 * is the seed template's: `confirmed` if any probe confirmed, else `refuted` if any refuted, else
 * `skipped`; `errored` only when the target could not be run or reached. One finding per confirmed
 * probe, none for anything else. Evidence was redacted and bounded at construction; `response` is
 * cut again here to a fixed length, as the engine shows it whole.
 */
import { headline } from './headline.js';
import { HANDLE_HIJACKING, MRTR_BINDING } from '../probe/model/references.js';
import type { ProbeResult, RunReport } from '../probe/model/report.js';
import { evidenceLine } from './evidence-lines.js';
import type { Reporter } from './types.js';
import { escapeJsonText } from './visible.js';

/** The run's status, as cert-x-gen reads it from `metadata.status`. */
export type CertXGenStatus = 'confirmed' | 'refuted' | 'skipped' | 'errored';

/** The template's description of itself: the shipped template's header says the same. */
export const CERT_X_GEN_TEMPLATE = {
  id: 'stateguard-mcp-state-integrity',
  name: 'MCP handle binding and requestState integrity (stateguard)',
  author: 'stateguard',
  severity: 'high',
  description:
    'ACTIVE check by stateguard: mints a handle as one identity and presents it as another, and ' +
    'tampers with, replays and re-targets the requestState of an input_required flow, each against ' +
    'controls that must hold, so a finding is a flaw shown and never a bare success',
  tags: [
    'mcp',
    'ai',
    'agent',
    'stateless-core',
    'handle-binding',
    'requeststate',
    'broken-object-level-authorization',
    'state-tampering',
    'behavioural',
    'active',
    'intrusive',
    'cwe-639',
    'cwe-565',
    'stateguard',
  ],
  cwe: ['CWE-639', 'CWE-565'],
  references: [
    MRTR_BINDING.url,
    HANDLE_HIJACKING.url,
    'https://cwe.mitre.org/data/definitions/639.html',
    'https://cwe.mitre.org/data/definitions/565.html',
  ],
  confidence: 90,
} as const;

/**
 * The weakness each probe's finding is. A probe missing here gets the template's CWEs; a test holds
 * every registered probe to an entry. `state/cross-instance` is a deployment fault, no weakness.
 */
export const PROBE_CWES: Readonly<Record<string, readonly string[]>> = {
  'handle/cross-principal': ['CWE-639'],
  'state/tamper': ['CWE-565', 'CWE-345'],
  'state/replay-principal': ['CWE-565', 'CWE-639'],
  'state/replay-request': ['CWE-565'],
  'state/replay-after-completion': ['CWE-294'],
  'state/error-oracle': ['CWE-203'],
  'state/expiry': ['CWE-613'],
  'state/cross-instance': [],
  'transport/origin': ['CWE-346'],
  // A session id honoured for whoever presents it is a user-controlled key that authorizes.
  'session/cross-principal': ['CWE-639'],
  // A task id honoured for another principal; ids that can be predicted, or answer as an oracle.
  'handle/task-cross-principal': ['CWE-639'],
  'handle/task-guessable': ['CWE-330', 'CWE-203'],
};

/** Longest `evidence.response` of a finding, in UTF-16 units (the seed template's cut). */
export const RESPONSE_MAX = 1400;
/** Longest `evidence.request` of a finding. */
export const REQUEST_MAX = 2000;
/** Longest `metadata.detail`. */
export const DETAIL_MAX = 2000;

/** `s` cut to at most `max` units, never through a surrogate pair, saying how long it was. */
export function cut(s: string, max: number): string {
  if (s.length <= max) return s;
  const marker = `…[cut from ${s.length}]`;
  let keep = Math.max(0, max - marker.length);
  const last = s.charCodeAt(keep - 1);
  if (last >= 0xd800 && last <= 0xdbff) keep--;
  return `${s.slice(0, keep)}${marker}`;
}

/** One line: every run of whitespace (newlines included) as one space, bounded. */
function oneLine(s: string): string {
  return cut(s.replace(/\s+/g, ' ').trim(), DETAIL_MAX);
}

/** True when the target could not be run or reached: nothing any probe said means anything. */
function unreachable(report: RunReport): boolean {
  return report.problem !== undefined || report.protocol.era === 'unknown';
}

/** The run's status and its one-line detail, by the seed template's rule. */
export function certXGenStatus(report: RunReport): { status: CertXGenStatus; detail: string } {
  if (unreachable(report)) {
    const why = report.problem ?? 'the target answered nothing usable';
    return { status: 'errored', detail: oneLine(`${report.target.display}: ${why}`) };
  }
  const ids = (v: ProbeResult['verdict']): string[] =>
    report.probes.filter((p) => p.verdict === v).map((p) => p.id);
  const status: CertXGenStatus =
    ids('confirmed').length > 0 ? 'confirmed' : ids('refuted').length > 0 ? 'refuted' : 'skipped';
  const groups = (['confirmed', 'refuted', 'skipped', 'errored'] as const)
    .filter((v) => ids(v).length > 0)
    .map((v) => `${v}: ${ids(v).join(', ')}`);
  // A skipped run names why: the reasons are what a reader needs when nothing could be probed.
  const why =
    status === 'skipped' ? ` (${report.probes.map((p) => `${p.id}: ${p.reason}`).join('; ')})` : '';
  return {
    status,
    detail: oneLine(`${report.target.display} | ${groups.join(' | ')}${why}`),
  };
}

/** Names of what backs a confirmation: the probe, each control held, each observation. */
function matchedPatterns(r: ProbeResult): string[] {
  return [
    r.id,
    ...Object.entries(r.controls).map(([id, c]) => `control ${id}: ${c.held ? 'held' : 'failed'}`),
    ...r.observations.map((o) => `observation ${o.label}`),
  ];
}

/**
 * The answers of each exchange, labelled, last first: the decisive call usually ends a probe, and
 * the cut keeps the start.
 */
function answers(r: ProbeResult): string {
  const said = [...r.evidence].reverse().flatMap((e) =>
    e.kind === 'http' || e.kind === 'jsonrpc'
      ? [
          {
            label: e.label,
            ...(e.identity === undefined ? {} : { identity: e.identity }),
            ...(e.error === undefined ? {} : { error: e.error }),
            received: e.received ?? [],
          },
        ]
      : [],
  );
  return JSON.stringify(said);
}

function finding(r: ProbeResult, report: RunReport, timestamp: string): Record<string, unknown> {
  const rule = report.rules?.find((rule) => rule.id === r.id);
  const rationale = rule?.rationale
    .split(/\n\s*\n/)[0]
    ?.replace(/\s+/g, ' ')
    .trim();
  const exchanges = r.evidence
    .filter((e) => e.kind === 'http' || e.kind === 'jsonrpc')
    .map(evidenceLine);
  const cweIds = [...(PROBE_CWES[r.id] ?? CERT_X_GEN_TEMPLATE.cwe)];
  return {
    target: report.target.display,
    template_id: CERT_X_GEN_TEMPLATE.id,
    severity: r.severity,
    confidence: CERT_X_GEN_TEMPLATE.confidence,
    title: `${r.id}: ${headline(r)}`,
    description: `${r.reason}${rationale === undefined ? '' : `\n\n${rationale}`}`,
    evidence: {
      request: cut(exchanges.join('\n'), REQUEST_MAX),
      response: cut(answers(r), RESPONSE_MAX),
      matched_patterns: matchedPatterns(r),
      data: {
        probe: r.id,
        verdict: r.verdict,
        reason: r.reason,
        ...(r.baselined === true ? { baselined: true } : {}),
        controls: r.controls,
        observations: r.observations,
        evidence: r.evidence,
        ms: r.ms,
      },
    },
    cwe_ids: cweIds,
    // The engine's simplified finding reads one `cwe` string, not the list: the first, when any.
    ...(cweIds[0] === undefined ? {} : { cwe: cweIds[0] }),
    tags: [...CERT_X_GEN_TEMPLATE.tags, r.id.split('/')[0] ?? r.id],
    timestamp,
  };
}

function metadata(status: CertXGenStatus, detail: string): Record<string, unknown> {
  return {
    ...CERT_X_GEN_TEMPLATE,
    tags: [...CERT_X_GEN_TEMPLATE.tags],
    cwe: [...CERT_X_GEN_TEMPLATE.cwe],
    references: [...CERT_X_GEN_TEMPLATE.references],
    status,
    detail,
  };
}

function print(document: unknown): string {
  return `${escapeJsonText(JSON.stringify(document, null, 2))}\n`;
}

/** The document of a run that never scanned (bad settings): `errored`, no findings. */
export function certXGenErrored(detail: string): string {
  return print({ findings: [], metadata: metadata('errored', oneLine(detail)) });
}

/** The cert-x-gen document of a report, as an object. */
export function toCertXGen(report: RunReport): {
  findings: Record<string, unknown>[];
  metadata: Record<string, unknown>;
} {
  const { status, detail } = certXGenStatus(report);
  const end = new Date(Date.parse(report.startedAt) + report.ms);
  const timestamp = Number.isNaN(end.getTime()) ? report.startedAt : end.toISOString();
  const findings =
    status === 'errored'
      ? []
      : report.probes
          .filter((r) => r.verdict === 'confirmed')
          .map((r) => finding(r, report, timestamp));
  return {
    findings,
    metadata: {
      ...metadata(status, detail),
      probes: report.probes.map((p) => ({ id: p.id, verdict: p.verdict })),
    },
  };
}

/** The cert-x-gen reporter. */
export const certXGen: Reporter = {
  id: 'cert-x-gen',
  render: (report) => print(toCertXGen(report)),
};
