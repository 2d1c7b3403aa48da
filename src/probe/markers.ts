/**
 * Canaries and markers: how a probe tells "the server handed me somebody else's data" apart from "the
 * server repeated what I sent".
 *
 * A marker (a canary the probe planted, a principal the server named) counts as evidence only when
 * the request that drew the answer did not itself carry it, in any encoding: raw, base64 or base64url
 * at any byte alignment, hex, or URL-encoded, and one level deeper inside a decoded value. A server
 * that echoes its input (a handle that embeds the label it was minted with) would otherwise "leak"
 * every canary it is shown.
 */
import { randomBytes } from 'node:crypto';
import { decodeBlob } from './mutate.js';

/**
 * A fresh canary: `sg-<tag>-<24 hex>`. Only `[a-z0-9-]`, so it survives JSON, URL encoding and
 * tokenising unchanged, and 96 random bits, so it cannot occur by chance.
 */
export function makeCanary(tag: string): string {
  const clean = tag.toLowerCase().replace(/[^a-z0-9]+/g, '-');
  return `sg-${clean}-${randomBytes(12).toString('hex')}`;
}

const MAX_TEXT = 1 << 20;

/** The JSON text of a value (bounded), the form in which answers are searched. */
export function textOf(value: unknown): string {
  if (typeof value === 'string') return value.slice(0, MAX_TEXT);
  try {
    return (JSON.stringify(value) ?? '').slice(0, MAX_TEXT);
  } catch {
    return '';
  }
}

/** Whether `answer` shows `marker` verbatim. */
export function shows(answer: unknown, marker: string): boolean {
  return marker.length > 0 && textOf(answer).includes(marker);
}

/**
 * The base64 forms of `marker` at each of the three byte alignments it can take inside a longer
 * encoded value, with the edge characters that depend on neighbouring bytes cut off. A canary in
 * the middle of a base64 blob is not `base64(canary)`; it is one of these.
 */
export function base64Cores(marker: string): string[] {
  const out: string[] = [];
  for (let pad = 0; pad < 3; pad++) {
    const bytes = Buffer.concat([Buffer.alloc(pad), Buffer.from(marker, 'utf8')]);
    const enc = bytes.toString('base64').replace(/=+$/, '');
    const head = Math.ceil((pad * 8) / 6);
    const tail = bytes.length % 3 === 0 ? 0 : 1;
    const core = enc.slice(head, enc.length - tail);
    if (core.length >= 4) out.push(core);
  }
  return out;
}

const B64_SEGMENT = /^[A-Za-z0-9+/_-]{8,}={0,2}$/;
const HEX_SEGMENT = /^(?:[0-9a-fA-F]{2}){4,}$/;

function decodings(s: string): string[] {
  const out: string[] = [];
  if (s.includes('%')) {
    try {
      out.push(decodeURIComponent(s));
    } catch {
      // Not URL-encoded after all.
    }
  }
  for (const part of s.split(/[.:~\s]+/)) {
    if (HEX_SEGMENT.test(part)) out.push(Buffer.from(part, 'hex').toString('latin1'));
    if (B64_SEGMENT.test(part)) {
      out.push(
        Buffer.from(part.replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('latin1'),
      );
    }
  }
  return out;
}

/** Whether one string carries `marker` in any encoding (one nested decoding deep). */
export function stringCarries(s: string, marker: string, depth = 2): boolean {
  if (marker.length === 0) return false;
  if (s.includes(marker)) return true;
  const lower = s.toLowerCase();
  if (lower.includes(marker.toLowerCase())) return true;
  if (lower.includes(Buffer.from(marker, 'utf8').toString('hex'))) return true;
  const url = encodeURIComponent(marker);
  if (url !== marker && s.includes(url)) return true;
  const urlSafe = s.replace(/-/g, '+').replace(/_/g, '/');
  if (base64Cores(marker).some((core) => urlSafe.includes(core))) return true;
  return depth > 0 && decodings(s).some((d) => d !== s && stringCarries(d, marker, depth - 1));
}

/** Options of {@link carries}. */
export interface CarryOptions {
  /**
   * Keys whose string values are searched raw only. `requestState` is one: a state probe's whole
   * point is whether the server *reads* the blob it gets back, so a field the server decoded out of
   * the state and named in its answer is the server acting on it; repeating the blob verbatim (an
   * echo) still shows nothing, because the raw blob does not contain the decoded field, and an
   * answer that repeats the whole decoded blob makes it searched in every encoding again
   * ({@link echoAware}).
   */
  readonly rawOnlyKeys?: readonly string[];
}

/**
 * The options with every raw-only key dropped whose value `answer` repeats *decoded and whole* (the
 * decoded JSON, verbatim or as an escaped string). Searching a `requestState` raw lets a field the
 * server decoded and acted on count; but a server that echoes the whole decoded blob back acts on
 * nothing, and every field of the blob would "come back" from it. So for such an answer the blob is
 * searched in every encoding like any argument. A server that repeats only some decoded fields is
 * indistinguishable from one that acts on them, and is read as acting.
 */
export function echoAware(answer: unknown, request: unknown, options: CarryOptions): CarryOptions {
  const rawOnly = options.rawOnlyKeys ?? [];
  if (rawOnly.length === 0) return options;
  const text = textOf(answer);
  const echoed = new Set<string>();
  const walk = (v: unknown, key: string | undefined, depth: number): void => {
    if (depth > 32) return;
    if (typeof v === 'string' && key !== undefined && rawOnly.includes(key)) {
      const decoded = decodeBlob(v);
      if (decoded === undefined) return;
      const json = JSON.stringify(decoded.value);
      if (text.includes(json) || text.includes(JSON.stringify(json).slice(1, -1))) echoed.add(key);
    } else if (typeof v === 'object' && v !== null) {
      for (const [k, item] of Object.entries(v)) walk(item, Array.isArray(v) ? key : k, depth + 1);
    }
  };
  walk(request, undefined, 0);
  return echoed.size === 0 ? options : { rawOnlyKeys: rawOnly.filter((k) => !echoed.has(k)) };
}

/** Whether a request (its params) carries `marker` anywhere, in any encoding. */
export function carries(request: unknown, marker: string, options: CarryOptions = {}): boolean {
  const rawOnly = new Set(options.rawOnlyKeys ?? []);
  const walk = (v: unknown, key: string | undefined, depth: number): boolean => {
    if (depth > 32) return false;
    if (typeof v === 'string') {
      return key !== undefined && rawOnly.has(key) ? v.includes(marker) : stringCarries(v, marker);
    }
    if (typeof v === 'number' || typeof v === 'boolean') return String(v) === marker;
    if (Array.isArray(v)) return v.some((item) => walk(item, key, depth + 1));
    if (typeof v === 'object' && v !== null) {
      return Object.entries(v).some(
        ([k, item]) => stringCarries(k, marker, 0) || walk(item, k, depth + 1),
      );
    }
    return false;
  };
  return walk(request, undefined, 0);
}

/** A marker counts when the answer shows it and the request that drew the answer did not carry it. */
export function markerCounts(
  marker: string,
  answer: unknown,
  request: unknown,
  options: CarryOptions = {},
): boolean {
  return shows(answer, marker) && !carries(request, marker, echoAware(answer, request, options));
}

// Times, dates and bare numbers vary from one answer to the next whoever asks; they are never
// taken as a principal's name.
const NOISE = /^(?:[\d.:+\-TZtz]+|true|false|null)$/;

/** The word-like tokens of a value's JSON text. */
export function tokensOf(value: unknown): Set<string> {
  const out = new Set<string>();
  for (const raw of textOf(value).split(/[^A-Za-z0-9_.@+/=~-]+/)) {
    const token = raw.replace(/^[.\-/=~]+|[.\-/]+$/g, '');
    if (token.length >= 3 && !NOISE.test(token)) out.add(token);
  }
  return out;
}

/**
 * Tokens every one of `mine` shows and none of `theirs` does, minus any token containing one of
 * `exclude` (handles, canaries): what the server says differently for one identity than for the
 * other. Interleaving the records in time (A, B, A) keeps clocks and counters out of the result.
 */
export function distinctTokens(
  mine: readonly unknown[],
  theirs: readonly unknown[],
  exclude: readonly string[],
): string[] {
  if (mine.length === 0) return [];
  const [first, ...rest] = mine.map(tokensOf);
  const others = theirs.map(tokensOf);
  return [...(first ?? [])].filter(
    (t) =>
      rest.every((set) => set.has(t)) &&
      others.every((set) => !set.has(t)) &&
      !exclude.some((x) => x.length > 0 && (t.includes(x) || x.includes(t))),
  );
}

/** Whether `answer` shows any of `tokens` as a whole token not carried by `request`. */
export function showsToken(
  answer: unknown,
  tokens: readonly string[],
  request: unknown,
  options: CarryOptions = {},
): string | undefined {
  const seen = tokensOf(answer);
  const opts = echoAware(answer, request, options);
  return tokens.find((t) => seen.has(t) && !carries(request, t, opts));
}
