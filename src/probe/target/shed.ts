/**
 * Load shedding, recognised as its own kind of answer: the server did not decide, it asked the
 * client to come back later. Three shapes are read as shedding, on either transport:
 *
 * - HTTP 429 (Too Many Requests), whatever its body carries, even a JSON-RPC error;
 * - HTTP 503 (Service Unavailable), the "busy, try again" status (other 5xx stay outages);
 * - a JSON-RPC error that says so in band (inside an HTTP 200, or on stdio): a rate-limit code
 *   (`-32029`, or `429` used as a code) or a message that names the limit in one of its usual
 *   phrasings ("rate limit exceeded", "rate-limited", "too many requests", "throttled", "server
 *   busy, try again later"), or a retry hint in `data` (`retryAfter`, `retry_after`,
 *   `retryAfterMs`) beside a generic server-error code.
 *
 * A real refusal must never read as a rate limit: the words are anchored on the limit itself, not
 * on "too many" alone ("too many failed attempts" is a lockout, a security decision), and the
 * JSON-RPC codes a refusal uses (`-32602` invalid params, `-32600`, `-32601`, `-32001` …) are
 * never shed by a bare retry hint.
 *
 * How long to wait comes from `Retry-After` (delta-seconds, fractional tolerated, or an HTTP-date),
 * `Retry-After-Ms`, or the error's `data`; absent, the pace picks a backoff (`pace.ts`).
 */
import type { Outcome } from '../model/wire.js';
import { isRecord } from '../model/json.js';

/** The shape a server shed load in. */
export const SHED_KINDS = ['429', '503', 'in-band'] as const;
export type ShedKind = (typeof SHED_KINDS)[number];

/** One shed answer: its shape, and how long the server asked to wait (ms), when it said. */
export interface Shed {
  readonly kind: ShedKind;
  readonly retryAfterMs?: number;
}

/** What the recogniser reads of one reply. */
export interface ShedReading {
  readonly outcome: Outcome;
  /** HTTP only: the status and headers (lower-case names). */
  readonly status?: number;
  readonly headers?: Readonly<Record<string, string>>;
}

/** JSON-RPC codes servers use for "rate limited", alone enough. */
const RATE_CODES: ReadonlySet<number> = new Set([-32029, 429]);

/**
 * Phrasings of a rate limit or an overloaded server. Each names the limit or the load, not only a
 * count: "too many requests" is the HTTP reason phrase, "too many attempts" is not here.
 */
const RATE_WORDS: readonly RegExp[] = [
  /\brate[\s_-]?limit/i,
  /\btoo[\s_-]+many[\s_-]+(requests|calls|concurrent)/i,
  /\bthrottl(ed|ing|e)\b/i,
  /\b(request|call)s?[\s_-]+(quota|rate)[\s_-]+(exceeded|reached)/i,
  /\b(server|service|backend)[\s_-]+(is[\s_-]+)?(busy|overloaded|at capacity)/i,
  /\bslow[\s_-]+down\b/i,
];

/**
 * Generic server-error codes where only a retry hint in `data` says the error is a rate limit:
 * the implementation-defined range, never the spec's request errors.
 */
const isServerRange = (code: number): boolean => code <= -32000 && code >= -32099;

/** Seconds (number or numeric string) as ms; anything else, or negative, is no hint. */
function secondsMs(value: unknown): number | undefined {
  const n = typeof value === 'string' && /^\s*\d+(\.\d+)?\s*$/.test(value) ? Number(value) : value;
  return typeof n === 'number' && Number.isFinite(n) && n >= 0 ? Math.round(n * 1000) : undefined;
}

/**
 * The wait a `Retry-After` value asks for (ms): delta-seconds (a fraction tolerated), or an
 * HTTP-date read against `now`; a date in the past is no wait. Unreadable is undefined.
 */
export function retryAfterMs(value: string | undefined, now = Date.now()): number | undefined {
  if (value === undefined) return undefined;
  const seconds = secondsMs(value);
  if (seconds !== undefined) return seconds;
  // An HTTP-date names its weekday and zone; a bare number that failed above is not one.
  if (!/[a-z]/i.test(value)) return undefined;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** The retry hint of an in-band error's `data`, in ms. */
function dataHintMs(data: unknown): number | undefined {
  if (!isRecord(data)) return undefined;
  const ms = data['retryAfterMs'] ?? data['retry_after_ms'];
  if (typeof ms === 'number' && Number.isFinite(ms) && ms >= 0) return Math.round(ms);
  return secondsMs(data['retryAfter'] ?? data['retry_after'] ?? data['retryAfterSeconds']);
}

/** The text an in-band error shows: its message, and `data`'s message or reason when it has one. */
function errorText(message: string, data: unknown): string {
  if (!isRecord(data)) return typeof data === 'string' ? `${message} ${data}` : message;
  const extra = ['message', 'reason', 'type', 'error']
    .map((k) => data[k])
    .filter((v): v is string => typeof v === 'string');
  return [message, ...extra].join(' ');
}

/** Whether a JSON-RPC error says, in band, that the server is shedding load. */
export function isRateLimitError(code: number, message: string, data?: unknown): boolean {
  if (RATE_CODES.has(code)) return true;
  const text = errorText(message, data);
  if (RATE_WORDS.some((w) => w.test(text))) return true;
  return isServerRange(code) && dataHintMs(data) !== undefined;
}

/** The shed a reply stands for, or undefined when it is anything else (a decision, an outage). */
export function shedOf(reading: ShedReading, now = Date.now()): Shed | undefined {
  const { outcome, status, headers } = reading;
  const fromHeader =
    retryAfterMs(headers?.['retry-after'], now) ?? msHeader(headers?.['retry-after-ms']);
  const hint = (kind: ShedKind, ms: number | undefined): Shed =>
    ms === undefined ? { kind } : { kind, retryAfterMs: ms };
  if (status === 429) return hint('429', fromHeader ?? errorHint(outcome));
  if (status === 503) return hint('503', fromHeader ?? errorHint(outcome));
  if (outcome.kind !== 'error') return undefined;
  if (!isRateLimitError(outcome.code, outcome.message, outcome.data)) return undefined;
  return hint('in-band', dataHintMs(outcome.data) ?? fromHeader ?? messageHintMs(outcome.message));
}

/** `Retry-After-Ms`: whole or fractional milliseconds. */
function msHeader(value: string | undefined): number | undefined {
  return value !== undefined && /^\s*\d+(\.\d+)?\s*$/.test(value)
    ? Math.round(Number(value))
    : undefined;
}

/** An in-band error's hint, for a 429 or 503 that carries one. */
function errorHint(outcome: Outcome): number | undefined {
  return outcome.kind === 'error' ? dataHintMs(outcome.data) : undefined;
}

/** "retry after 2 seconds", "try again in 1.5 s": a hint in the message's words. */
function messageHintMs(message: string): number | undefined {
  const m =
    /\b(?:retry|try again)\s+(?:after|in)\s+(\d+(?:\.\d+)?)\s*(ms|milliseconds?|s|sec|seconds?)\b/i.exec(
      message,
    );
  if (!m) return undefined;
  const n = Number(m[1]);
  return Math.round(m[2]?.toLowerCase().startsWith('m') === true ? n : n * 1000);
}

/** How a shed reads in a reason: `HTTP 429`, `HTTP 503`, `in-band rate limit`. */
export function shedLabel(kind: ShedKind): string {
  return kind === 'in-band' ? 'in-band rate-limit error' : `HTTP ${kind}`;
}
