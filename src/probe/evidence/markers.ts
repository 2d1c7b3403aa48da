/**
 * Canaries and markers: what a probe plants (a canary: 96 random bits nobody can guess) and what it
 * looks for in an answer (the canary, or a token the server names for one identity only). Whether a
 * marker that shows up is evidence is decided by the experiments that compare answers, never here.
 */
import { randomBytes } from 'node:crypto';

/**
 * A fresh canary: `sg-<tag>-<24 hex>`. Only `[a-z0-9-]`, so it survives JSON, URL encoding and
 * tokenising unchanged, and 96 random bits, so it cannot occur by chance.
 */
export function makeCanary(tag: string): string {
  const clean = tag.toLowerCase().replace(/[^a-z0-9]+/g, '-');
  return `sg-${clean}-${randomBytes(12).toString('hex')}`;
}

/** Most characters of an answer searched. */
export const MAX_TEXT = 1 << 20;

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

// Times, dates and bare numbers vary from one answer to the next whoever asks; they are never
// taken as a principal's name.
const NOISE = /^(?:[\d.:+\-TZtz]+|true|false|null)$/;

/**
 * `text` cut into word-like pieces, each trimmed of the punctuation around a word (a full stop, a
 * dash): how {@link tokensOf} reads a string, and so how a secret can be cut out of an answer.
 */
export function tokenPieces(text: string): string[] {
  return text.split(/[^A-Za-z0-9_.@+/=~-]+/).map((raw) => raw.replace(/^[.\-/=~]+|[.\-/]+$/g, ''));
}

/**
 * The word-like tokens of a value: of every string in it (keys too) read as text, so a line break
 * or a quote inside a string never glues itself to the next word as JSON escapes would (`\nowner`).
 */
export function tokensOf(value: unknown): Set<string> {
  const out = new Set<string>();
  let budget = MAX_TEXT;
  const add = (raw0: string): void => {
    budget -= raw0.length;
    // URL-encoded text is read decoded: `%22alice%22` names alice, not `22alice`.
    const text = /%[0-9A-Fa-f]{2}/.test(raw0) ? urlDecoded(raw0) : raw0;
    for (const token of tokenPieces(text))
      if (token.length >= 3 && !NOISE.test(token)) out.add(token);
  };
  const walk = (v: unknown, depth: number): void => {
    if (depth > 32 || budget <= 0) return;
    if (typeof v === 'string') add(v.length > budget ? v.slice(0, budget) : v);
    else if (typeof v === 'number' || typeof v === 'boolean') add(String(v));
    else if (Array.isArray(v)) for (const item of v) walk(item, depth + 1);
    else if (typeof v === 'object' && v !== null) {
      for (const [k, item] of Object.entries(v)) {
        add(k);
        walk(item, depth + 1);
      }
    }
  };
  walk(value, 0);
  return out;
}

/** `s` URL-decoded; an undecodable escape reads as a space. */
export function urlDecoded(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s.replace(/%[0-9A-Fa-f]{2}/g, ' ');
  }
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
      // A short exclusion (an integer id such as 17) must not wipe out every token holding its digits.
      !exclude.some((x) =>
        x.length >= 6 ? t.includes(x) || x.includes(t) : x.length > 0 && t === x,
      ),
  );
}

/** A marker a probe looks for: a canary it planted, or a token the server names for one party. */
export interface Marker {
  readonly value: string;
  /** A canary counts anywhere in the answer's text; a token only as a whole token. */
  readonly kind: 'canary' | 'token';
}

/** Whether `answer` shows `marker` (a canary anywhere, a token whole). */
export function showsMarker(answer: unknown, marker: Marker): boolean {
  return marker.kind === 'canary'
    ? shows(answer, marker.value)
    : tokensOf(answer).has(marker.value);
}

/**
 * The markers `answer` shows, reading the answer once whatever the number of markers (a canary
 * anywhere in its text, a token whole).
 */
export function markersShown(answer: unknown, markers: readonly Marker[]): Marker[] {
  if (markers.length === 0) return [];
  const text = textOf(answer);
  const tokens = markers.some((m) => m.kind === 'token') ? tokensOf(answer) : new Set<string>();
  return markers.filter((m) =>
    m.kind === 'canary' ? m.value.length > 0 && text.includes(m.value) : tokens.has(m.value),
  );
}

/** The markers of a canary and a set of tokens. */
export function markersOf(canary: string, tokens: readonly string[]): Marker[] {
  return [
    { value: canary, kind: 'canary' },
    ...tokens.map((value) => ({ value, kind: 'token' as const })),
  ];
}
