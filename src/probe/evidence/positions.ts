/**
 * An answer as positioned tokens, so that two answers to the same request can be lined up and
 * compared position by position. This is the instrument of every experiment the probes run: send
 * the same request twice to learn what varies by itself (clocks, fresh ids, random references),
 * then once with one controlled difference, and see whether anything else changed.
 *
 * Every string (and number and boolean) at any depth of an answer is a leaf: structured content,
 * text items, `_meta`, resource links and embedded resources, error messages. A text that is JSON
 * is opened and its leaves join the answer's. A leaf is split into word-like tokens; its position
 * is its path plus the token's index. Nothing here knows what a field means.
 *
 * Everything is bounded by the input, linearly: at most {@link MAX_CHARS} characters are read, at
 * most {@link MAX_LEAVES} leaves and {@link MAX_TOKENS} tokens in all are kept.
 */
import type { Varying } from '../model/surface-map.js';
import { isRecord } from '../model/json.js';

/** One leaf of an answer: where it sits and what it says. */
export interface Leaf {
  /** JSON-path-like and stable across answers of the same request: `content.0.text`, `structuredContent.booking.code`. */
  readonly path: string;
  /** The leaf as written (bounded). */
  readonly value: string;
  /** Its word-like tokens, in order. */
  readonly tokens: readonly string[];
}

/** Most characters of one answer read. */
export const MAX_CHARS = 1 << 20;
/** Most leaves of one answer kept. */
export const MAX_LEAVES = 4096;
/** Most tokens of one answer kept. */
export const MAX_TOKENS = 1 << 16;
const MAX_DEPTH = 32;

// Word-like: letters and digits of any script, and the characters ids and references are made of.
const SPLIT = /[^\p{L}\p{N}\p{M}_.:~+/=@#-]+/u;
// What a sentence puts around a word: its full stop or colon after it, a `#` before a number. Only
// these are trimmed: an id's own characters at its ends (base64url's `-` and `_`, base64's `=`
// padding, a path's `/`, a phone number's `+`) are drawn at random and belong to it.
const EDGE = /^[.:#]+|[.:]+$/g;
const WORDLIKE = /[\p{L}\p{N}]/u;

/** The word-like tokens of one string, in order (at most `max`). */
export function tokenize(text: string, max = MAX_TOKENS): string[] {
  const out: string[] = [];
  for (const raw of text.split(SPLIT)) {
    if (out.length >= max) break;
    const token = raw.replace(EDGE, '');
    if (WORDLIKE.test(token)) out.push(token);
  }
  return out;
}

/** A text that is one JSON object or array (after trimming), parsed; else `undefined`. */
function jsonText(text: string): unknown {
  const t = text.trim();
  if (t.length < 2 || !((t[0] === '{' && t.endsWith('}')) || (t[0] === '[' && t.endsWith(']'))))
    return undefined;
  try {
    return JSON.parse(t) as unknown;
  } catch {
    return undefined;
  }
}

/** What stands in an answer for a value the request sent, masked by {@link leavesOf}. */
export const MASKED = '<sent>';
/** Shortest value masked: shorter ones would cut ordinary words. */
const MIN_MASKED = 8;

/**
 * The leaves of an answer, in a stable order (see the module comment). Each of `mask` (values the
 * request sent, such as the `requestState` itself) is replaced by {@link MASKED} wherever a string
 * holds it verbatim, before any JSON in it is opened: a server that repeats what it was sent shows
 * nothing of its own by doing so.
 */
export function leavesOf(answer: unknown, mask: readonly string[] = []): Leaf[] {
  const out: Leaf[] = [];
  let chars = MAX_CHARS;
  let tokens = MAX_TOKENS;
  const masks = [...new Set(mask.filter((m) => m.length >= MIN_MASKED))].sort(
    (a, b) => b.length - a.length,
  );
  const masked = (s: string): string => {
    let v = s;
    for (const m of masks) if (v.includes(m)) v = v.split(m).join(MASKED);
    return v;
  };
  const add = (path: string, raw: string): void => {
    if (out.length >= MAX_LEAVES || chars <= 0) return;
    const value = masked(raw.length > chars ? raw.slice(0, chars) : raw);
    chars -= value.length;
    const parsed = value.length > 1 ? jsonText(value) : undefined;
    if (parsed !== undefined && typeof parsed === 'object') {
      walk(parsed, `${path}#json`, 0);
      return;
    }
    const t = tokenize(value, Math.max(0, tokens));
    tokens -= t.length;
    out.push({ path, value, tokens: t });
  };
  const walk = (v: unknown, path: string, depth: number): void => {
    if (depth > MAX_DEPTH || out.length >= MAX_LEAVES || chars <= 0) return;
    if (typeof v === 'string') add(path, v);
    else if (typeof v === 'number' || typeof v === 'boolean') add(path, String(v));
    else if (v === null) add(path, 'null');
    else if (Array.isArray(v)) v.forEach((item, i) => walk(item, `${path}.${i}`, depth + 1));
    else if (isRecord(v))
      for (const [k, item] of Object.entries(v))
        walk(item, path === '' ? k : `${path}.${k}`, depth + 1);
  };
  walk(answer, '', 0);
  return out;
}

/** Where answers of the same request vary by themselves: leaf paths, whole or at token indices. */
export interface Noise {
  /** Leaves that vary as a whole (their token count changed, or they came and went). */
  readonly wholeLeaves: ReadonlySet<string>;
  /** `path#index` of single tokens that vary. */
  readonly tokens: ReadonlySet<string>;
}

/** No noise at all. */
export const NO_NOISE: Noise = { wholeLeaves: new Set(), tokens: new Set() };

const byPath = (leaves: readonly Leaf[]): Map<string, Leaf> =>
  new Map(leaves.map((l) => [l.path, l]));

/**
 * What differs between answers to the same request sent the same way: each position where they
 * disagree. More samples only widen it. An answer's own variation learned from two samples is the
 * noise every later comparison ignores.
 */
export function noiseOf(samples: readonly (readonly Leaf[])[], base: Noise = NO_NOISE): Noise {
  const wholeLeaves = new Set(base.wholeLeaves);
  const tokens = new Set(base.tokens);
  const [first, ...rest] = samples;
  if (first === undefined) return { wholeLeaves, tokens };
  const a = byPath(first);
  for (const other of rest) {
    const b = byPath(other);
    for (const path of new Set([...a.keys(), ...b.keys()])) {
      const x = a.get(path);
      const y = b.get(path);
      if (x === undefined || y === undefined || x.tokens.length !== y.tokens.length) {
        wholeLeaves.add(path);
        continue;
      }
      x.tokens.forEach((t, i) => {
        if (t !== y.tokens[i]) tokens.add(`${path}#${i}`);
      });
    }
  }
  return { wholeLeaves, tokens };
}

/** One position where two answers disagree beyond the noise. */
export interface Difference {
  readonly path: string;
  /** What the first answer says there (absent: nothing). */
  readonly before?: string;
  /** What the second answer says there. */
  readonly after?: string;
}

const MAX_DIFFERENCES = 16;
const clip = (s: string): string => (s.length > 200 ? `${s.slice(0, 200)}…` : s);

/**
 * The positions where `other` disagrees with `base` beyond `noise` (at most 16, in order): a leaf
 * that came or went, changed its token count, or changed a token that does not vary by itself.
 */
export function differences(
  base: readonly Leaf[],
  other: readonly Leaf[],
  noise: Noise = NO_NOISE,
  max = MAX_DIFFERENCES,
): Difference[] {
  const out: Difference[] = [];
  const a = byPath(base);
  const b = byPath(other);
  for (const path of new Set([...a.keys(), ...b.keys()])) {
    if (out.length >= max) break;
    if (noise.wholeLeaves.has(path)) continue;
    const x = a.get(path);
    const y = b.get(path);
    if (x === undefined || y === undefined || x.tokens.length !== y.tokens.length) {
      out.push({
        path,
        ...(x === undefined ? {} : { before: clip(x.value) }),
        ...(y === undefined ? {} : { after: clip(y.value) }),
      });
      continue;
    }
    const i = x.tokens.findIndex((t, j) => t !== y.tokens[j] && !noise.tokens.has(`${path}#${j}`));
    if (i >= 0) out.push({ path, before: clip(x.value), after: clip(y.value) });
  }
  return out;
}

/**
 * The values of `first` at every position where it and `second` (the same request, sent again)
 * disagree: a whole leaf when the leaf is one token or changed its length, else each token that
 * changed. Two identical minting calls disagree exactly where the server minted something (and
 * where its clock ticked, which a later acceptance test tells apart).
 */
export function varyingValues(first: readonly Leaf[], second: readonly Leaf[]): Varying[] {
  const out: Varying[] = [];
  const b = byPath(second);
  for (const x of first) {
    const y = b.get(x.path);
    if (y === undefined || x.value === y.value) continue;
    if (x.tokens.length <= 1 || x.tokens.length !== y.tokens.length) {
      out.push({ path: x.path, value: x.value });
      continue;
    }
    x.tokens.forEach((t, i) => {
      if (t !== y.tokens[i]) out.push({ path: x.path, value: t, index: i });
    });
  }
  return out;
}

/** The value at `like`'s position in another answer of the same request (a fresh mint). */
export function valueAt(leaves: readonly Leaf[], like: Varying): string | undefined {
  const leaf = leaves.find((l) => l.path === like.path);
  if (leaf === undefined) return undefined;
  return like.index === undefined ? leaf.value : leaf.tokens[like.index];
}
