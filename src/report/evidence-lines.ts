/**
 * One line per piece of evidence, for the text report: who sent what, and what came back. Long
 * opaque values (sealed states, handles) are shortened to a prefix, their length and a short hash,
 * so two exchanges can still be compared (issued vs tampered) without pages of base64.
 */
import { createHash } from 'node:crypto';
import type { Evidence } from '../probe/model/evidence.js';
import type { ProbeResult } from '../probe/model/report.js';
import type { EvidenceMode } from './types.js';
import { isRecord } from '../probe/model/json.js';

/** `v1.eyJwcmluY2…(312 chars, sha256:ab12cd34)` for a long string; short strings as they are. */
export function shortBlob(value: string, keep = 12): string {
  if (value.length <= 48) return value;
  const hash = createHash('sha256').update(value).digest('hex').slice(0, 8);
  return `${value.slice(0, keep)}…(${value.length} chars, sha256:${hash})`;
}

function sentSummary(sent: unknown): string {
  if (!isRecord(sent)) return '?';
  const method = typeof sent.method === 'string' ? sent.method : '?';
  const params = isRecord(sent.params) ? sent.params : {};
  const parts = [method];
  if (typeof params.name === 'string') parts.push(shortBlob(params.name, 32));
  if (typeof params.requestState === 'string')
    parts.push(`requestState=${shortBlob(params.requestState)}`);
  if (isRecord(params.inputResponses))
    parts.push(`inputResponses[${Object.keys(params.inputResponses).join(',')}]`);
  return parts.join(' ');
}

/** The answer among the messages of an exchange: the last result or error (not a request). */
export function answerMessage(
  received: readonly unknown[] | undefined,
): Record<string, unknown> | undefined {
  const answer = [...(received ?? [])]
    .reverse()
    .find((m) => isRecord(m) && !('method' in m) && ('result' in m || 'error' in m));
  return isRecord(answer) ? answer : undefined;
}

function answerSummary(received: readonly unknown[] | undefined): string {
  const list = received ?? [];
  const answer = answerMessage(list);
  const others = list.length - (answer ? 1 : 0);
  const extra = others > 0 ? ` (+${others} other message${others === 1 ? '' : 's'})` : '';
  if (answer === undefined) return `no answer${extra}`;
  if (isRecord(answer.error)) {
    const message =
      typeof answer.error.message === 'string' ? ` ${shortBlob(answer.error.message, 40)}` : '';
    return `error ${String(answer.error.code)}${message}${extra}`;
  }
  const result = isRecord(answer.result) ? answer.result : {};
  const type = typeof result.resultType === 'string' ? ` ${result.resultType}` : '';
  const isError = result.isError === true ? ' isError' : '';
  return `result${type}${isError}${extra}`;
}

/** A request/answer pair of evidence: an HTTP or a JSON-RPC exchange. */
export type ExchangeEvidence = Extract<Evidence, { kind: 'http' | 'jsonrpc' }>;

/**
 * The two halves of an exchange's one-line summary: what was sent (`tools/call transfer
 * requestState=v1.eyJ…`), and what came back (`HTTP 200: result complete (+1 other message)`, an
 * error with its message, or why nothing did). Shared by the text line and the HTML sequence.
 */
export function exchangeSummary(e: ExchangeEvidence): { sent: string; answer: string } {
  const body = e.kind === 'http' ? e.request.body : e.sent;
  const status = e.kind === 'http' && e.response ? `HTTP ${e.response.status}: ` : '';
  // A bodiless request (a legacy session's GET event stream, its DELETE) is named by its method;
  // what a stream carries is events, not an answer.
  const bodiless = e.kind === 'http' && body === undefined ? e.request.method : undefined;
  const events = e.received?.length ?? 0;
  const tail =
    e.error !== undefined
      ? e.error
      : bodiless === 'GET'
        ? `${events} event${events === 1 ? '' : 's'}`
        : bodiless !== undefined
          ? ''
          : answerSummary(e.received);
  const answer = tail === '' ? status.replace(/: $/, '') : `${status}${tail}`;
  return { sent: bodiless ?? sentSummary(body), answer };
}

/** The one-line summary of a piece of evidence. */
export function evidenceLine(e: Evidence): string {
  switch (e.kind) {
    case 'http':
    case 'jsonrpc': {
      const who = e.identity ? `[${e.identity}] ` : '';
      const { sent, answer } = exchangeSummary(e);
      return `${who}${sent} · ${e.label} → ${answer} (${e.ms} ms)`;
    }
    case 'observation':
      return `observed ${e.label}: expected ${e.expected}; actual ${e.actual}`;
    case 'stderr':
      return `stderr: ${e.lines.length} line${e.lines.length === 1 ? '' : 's'}`;
    case 'note':
      return `note: ${e.text}`;
  }
}

/**
 * The lines beneath a probe's verdict, indented: its controls (each marked held or not by `mark`),
 * its observations, and its evidence as `mode` asks (one line each, or each in full, or none).
 */
export function detailLines(
  r: ProbeResult,
  mode: EvidenceMode,
  mark: (held: boolean) => string = (held) => (held ? '✓' : '✗'),
): string[] {
  const lines: string[] = [];
  for (const [id, c] of Object.entries(r.controls)) {
    lines.push(`    control ${mark(c.held)} ${id}: expected ${c.expected}; observed ${c.observed}`);
  }
  for (const obs of r.observations) lines.push(`    observation ${obs.label}: ${obs.detail}`);
  if (mode === 'none' || r.evidence.length === 0) return lines;
  lines.push(`    evidence (${r.evidence.length}):`);
  for (const e of r.evidence) {
    lines.push(`      ${evidenceLine(e)}`);
    if (mode === 'full') {
      const body = e.kind === 'stderr' ? e.lines.join('\n') : JSON.stringify(e, null, 2);
      for (const l of body.split('\n')) lines.push(`        ${l}`);
    }
  }
  return lines;
}
