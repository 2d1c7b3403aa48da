/**
 * Harvesting the values a server hands out, wherever it puts them: any string at any depth of
 * `structuredContent`, JSON written anywhere in a text (after prose, in a code fence), id-like
 * tokens in prose ("Your draft dr_7Qk2… is ready"), and the URIs of `resource_link` and embedded
 * resources. A value the request itself sent, as it is, is an echo and never a handle.
 */
import { jsonIn } from '../evidence/echo.js';
import { urlDecoded } from '../evidence/markers.js';
import { isReferenceName } from './schema.js';

/** A value an answer handed out, and where it sat. */
export interface Found {
  readonly value: string;
  /** The key it sat under (`bookingCode`, `uri`), when it had one. */
  readonly key?: string;
  /**
   * Where it sat, stable across answers of the same call (`r0:structured:booking.code`,
   * `r1:text0:token2`): a fresh answer's value at the same place is the fresh handle.
   */
  readonly where: string;
  readonly kind: 'structured' | 'json' | 'prose' | 'link';
  /** An integer id (`{"ticket": {"id": 17}}`), sent back as a number where a parameter takes one. */
  readonly numeric?: true;
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const MAX_VALUE = 4096;
const MAX_FOUND = 64;
// Dates, times, numbers and words that vary or mean nothing as a handle.
const NOISE = /^(?:[\d.:+\-TZtz ]+|true|false|null|undefined)$/;
// An id-like token in prose: letters and a digit, joined by the characters ids are made of.
const PROSE_TOKEN = /[A-Za-z0-9][A-Za-z0-9_.:~+/=-]{4,}[A-Za-z0-9=_-]/g;

function idLike(token: string): boolean {
  if (NOISE.test(token) || token.includes('://')) return false;
  const letters = /[A-Za-z]/.test(token);
  const digits = /\d/.test(token);
  return (letters && digits) || (letters && token.length >= 20 && /[_-]/.test(token));
}

/**
 * Every value `result` (one answer) hands out that `request` did not carry, in a stable order:
 * structured content, resource links, JSON in text, prose tokens. `round` prefixes the places.
 */
export function harvest(result: unknown, request: unknown, round = 0): Found[] {
  const out: Found[] = [];
  const seen = new Set<string>();
  const requestText = JSON.stringify(request ?? null);
  const add = (value: string, where: string, kind: Found['kind'], key?: string): void => {
    if (out.length >= MAX_FOUND || value.length === 0 || value.length > MAX_VALUE) return;
    if (seen.has(value) || NOISE.test(value.trim())) return;
    if (carried(value, request, requestText)) return;
    seen.add(value);
    out.push({ value, where: `r${round}:${where}`, kind, ...(key === undefined ? {} : { key }) });
  };
  // A number is a handle only where its key says it refers to something (`id`, `ticketNumber`):
  // counts, amounts and times are numbers too.
  const addNumber = (n: number, where: string, kind: Found['kind'], key: string): void => {
    const value = String(n);
    // Carried only if the request sent this very number (or its digits as a string) as a value.
    if (out.length >= MAX_FOUND || seen.has(value) || leavesOf(request).includes(value)) return;
    seen.add(value);
    out.push({ value, where: `r${round}:${where}`, kind, key, numeric: true });
  };
  const leaves = (v: unknown, where: string, kind: Found['kind'], key?: string, depth = 0) => {
    if (depth > 16) return;
    if (typeof v === 'string') add(v, where, kind, key);
    else if (
      typeof v === 'number' &&
      Number.isSafeInteger(v) &&
      v > 0 &&
      key !== undefined &&
      isReferenceName(key)
    )
      addNumber(v, where, kind, key);
    else if (Array.isArray(v))
      v.forEach((item, i) => leaves(item, `${where}.${i}`, kind, key, depth + 1));
    else if (isRecord(v))
      for (const [k, item] of Object.entries(v)) leaves(item, `${where}.${k}`, kind, k, depth + 1);
  };
  if (!isRecord(result)) return out;
  leaves(result['structuredContent'], 'structured', 'structured');
  const content = Array.isArray(result['content'])
    ? result['content']
    : Array.isArray(result['contents'])
      ? result['contents']
      : Array.isArray(result['messages'])
        ? result['messages'].map((m) => (isRecord(m) ? m['content'] : undefined))
        : [];
  content.forEach((item, i) => {
    if (!isRecord(item)) return;
    if (typeof item['uri'] === 'string' && item['type'] === 'resource_link')
      add(item['uri'], `link${i}`, 'link', 'uri');
    if (isRecord(item['resource']) && typeof item['resource']['uri'] === 'string')
      add(item['resource']['uri'], `link${i}`, 'link', 'uri');
  });
  content.forEach((item, i) => {
    // A text item, a resource's contents, or an embedded resource's text.
    const text = !isRecord(item)
      ? undefined
      : typeof item['text'] === 'string'
        ? item['text']
        : isRecord(item['resource']) && typeof item['resource']['text'] === 'string'
          ? item['resource']['text']
          : undefined;
    if (text === undefined) return;
    // URL-encoded text (a link carrying the answer in its query) is read decoded.
    const plain = /%[0-9A-Fa-f]{2}/.test(text) ? urlDecoded(text) : text;
    jsonIn(plain).forEach((parsed, j) => leaves(parsed, `text${i}:json${j}`, 'json'));
    let ordinal = 0;
    for (const match of plain.matchAll(PROSE_TOKEN)) {
      const token = match[0].replace(/[.:]+$/, '');
      if (!idLike(token) || requestText.includes(token)) continue;
      add(token, `text${i}:token${ordinal++}`, 'prose');
    }
  });
  return out;
}

/**
 * A value the request sent as it is: an echo, never a handle. A value that merely *contains* what
 * was sent (a handle that wraps its label in base64) is still a candidate: stateless servers mint
 * exactly such handles, and the echo rule judges what comes back later, not what is offered.
 */
function carried(value: string, request: unknown, requestText: string): boolean {
  return (
    requestText.includes(JSON.stringify(value).slice(1, -1)) && stringsOf(request).includes(value)
  );
}

/** Every string and number a value holds, numbers as their decimal text. */
function leavesOf(v: unknown): string[] {
  const out: string[] = [];
  const walk = (x: unknown, depth: number): void => {
    if (depth > 16 || out.length > 256) return;
    if (typeof x === 'string' || typeof x === 'number') out.push(String(x));
    else if (Array.isArray(x)) for (const item of x) walk(item, depth + 1);
    else if (isRecord(x)) for (const item of Object.values(x)) walk(item, depth + 1);
  };
  walk(v, 0);
  return out;
}

function stringsOf(v: unknown, depth = 0, out: string[] = []): string[] {
  if (depth > 16 || out.length > 256) return out;
  if (typeof v === 'string') out.push(v);
  else if (Array.isArray(v)) for (const item of v) stringsOf(item, depth + 1, out);
  else if (isRecord(v)) for (const item of Object.values(v)) stringsOf(item, depth + 1, out);
  return out;
}

/** Every value the rounds of one driven call handed out (see {@link harvest}). */
export function harvestRounds(answers: readonly unknown[], sent: readonly unknown[]): Found[] {
  const out: Found[] = [];
  const seen = new Set<string>();
  answers.forEach((answer, round) => {
    for (const f of harvest(answer, sent, round)) {
      if (seen.has(f.value)) continue;
      seen.add(f.value);
      out.push(f);
    }
  });
  return out;
}

/**
 * The value a fresh answer of the same call hands out in the place `like` was found: the same
 * place, else the same key and kind, else the only value of that kind.
 */
export function findLike(
  answers: readonly unknown[],
  sent: readonly unknown[],
  like: Found,
): string | undefined {
  const found = harvestRounds(answers, sent);
  const same = found.find((f) => f.where === like.where);
  if (same !== undefined) return same.value;
  const keyed = found.filter((f) => f.kind === like.kind && f.key === like.key);
  if (keyed.length === 1) return keyed[0]?.value;
  const kind = found.filter((f) => f.kind === like.kind);
  return kind.length === 1 ? kind[0]?.value : undefined;
}
