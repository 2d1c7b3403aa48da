/**
 * Canonical digests of the JSON values a state is bound to (arguments, questions), remembered by
 * their JSON text.
 *
 * The digest is SHA-256 of the RFC 8785 canonical form of the JSON a value stands for: the text
 * `JSON.stringify` writes for it, parsed back. That makes the digest a pure function of the text, so
 * a memo keyed on the text is exact: whatever is remembered is what a recomputation would give.
 * Canonicalizing the value itself would not be: `{ a: 1, f() {} }` writes `{"a":1}` but
 * canonicalizes with an `f`, and a boxed string writes as a string but canonicalizes as an object,
 * so a memo keyed on the text would answer for another value and could let a state open for
 * arguments it was not sealed for. For plain JSON data both readings agree (the vectors pin it).
 *
 * The one thing the text hides is a number JSON cannot carry: `JSON.stringify` writes NaN and
 * ±Infinity as `null`, where canonical JSON refuses them. A text containing `null` is checked against
 * the value itself before anything remembered is used.
 */
import * as crypto from 'node:crypto';
import { canonicalJson } from './binding.js';
import { createMemo } from './memo.js';

// One-shot `crypto.hash` (Node ≥ 20.12) skips the Hash object and is about twice as fast for the
// short texts digested here; older Node 20 releases fall back to `createHash`. A namespace import,
// because a named import of a missing export would fail to link on those releases.
const oneShot = (crypto as { hash?: typeof crypto.hash }).hash;
const sha256: (text: string) => Buffer =
  typeof oneShot === 'function'
    ? (text) => oneShot('sha256', text, 'buffer')
    : (text) => crypto.createHash('sha256').update(text, 'utf8').digest();

// Tools called without arguments are common; their digest never changes. Shared: never mutate it.
const EMPTY_DIGEST = sha256('{}');

/** The JSON text of a value, or a `TypeError` that names nothing of it. */
function jsonText(value: unknown): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch {
    // JSON.stringify's own message can quote the value's keys (circular paths): never pass it on.
    text = undefined;
  }
  if (text === undefined) throw new TypeError('value is not representable as JSON');
  return text;
}

/** The canonical digest of the JSON a text holds. */
function textDigest(text: string): Buffer {
  return sha256(canonicalJson(JSON.parse(text)));
}

/**
 * SHA-256 of the canonical JSON of a value, uncached; absent (`undefined`/`null`) digests as `{}`.
 * Throws `TypeError` for values JSON cannot carry (NaN, ±Infinity, lone surrogates, cycles, BigInt).
 */
export function jsonDigest(value: unknown): Buffer {
  if (value === undefined || value === null) return EMPTY_DIGEST;
  const text = jsonText(value);
  if (text.includes('null')) canonicalJson(value);
  return textDigest(text);
}

/** How many digests a digester remembers by default. */
const DEFAULT_LIMIT = 512;

/** Flat objects with more keys than this take the JSON-text road. */
const MAX_FLAT_KEYS = 16;

/** A JSON value with no structure: what a flat object's values must be. */
type Scalar = string | number | boolean | null;

/** A flat object's own entries, read once. */
interface FlatEntries {
  readonly keys: readonly string[];
  readonly values: readonly Scalar[];
}

/**
 * A plain object whose JSON text is decided by its own enumerable keys and their values alone: its
 * prototype is `Object.prototype` or `null`, nothing on its chain is called `toJSON` (which
 * `JSON.stringify` would call), and the caller then checks every value is a string, a finite number,
 * a boolean or `null`.
 */
function plainKeys(value: unknown): string[] | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const proto: unknown = Object.getPrototypeOf(value);
  if ((proto !== Object.prototype && proto !== null) || 'toJSON' in value) return undefined;
  return Object.keys(value);
}

function isScalar(v: unknown): v is Scalar {
  return (
    typeof v === 'string' ||
    typeof v === 'boolean' ||
    v === null ||
    (typeof v === 'number' && Number.isFinite(v))
  );
}

/** The entries of a flat object (values read once), or `undefined` for anything else. */
function flatEntries(value: unknown): FlatEntries | undefined {
  const keys = plainKeys(value);
  if (keys === undefined || keys.length > MAX_FLAT_KEYS) return undefined;
  const values: Scalar[] = [];
  for (const key of keys) {
    const v: unknown = (value as Record<string, unknown>)[key];
    if (!isScalar(v)) return undefined;
    values.push(v);
  }
  return { keys, values };
}

/**
 * Whether `value` is a flat object with exactly these entries, in this order. `===` against a
 * string, a finite number, a boolean or `null` holds only for that same value (and for `-0`
 * against `0`, which JSON writes alike), so a match writes exactly the JSON `entries` write.
 */
function sameEntries(value: unknown, entries: FlatEntries): boolean {
  const keys = plainKeys(value);
  if (keys === undefined || keys.length !== entries.keys.length) return false;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    if (key !== entries.keys[i]) return false;
    if ((value as Record<string, unknown>)[key] !== entries.values[i]) return false;
  }
  return true;
}

/** The JSON text of flat entries: what `JSON.stringify` writes for an object holding them. */
function entriesText({ keys, values }: FlatEntries): string {
  let text = '{';
  for (let i = 0; i < keys.length; i++) {
    text += `${i === 0 ? '' : ','}${JSON.stringify(keys[i])}:${JSON.stringify(values[i])}`;
  }
  return `${text}}`;
}

/**
 * A {@link jsonDigest} that remembers the digests of up to `limit` recent texts, with the last one in
 * front: the rounds of a flow present the same arguments again. When the last value was a flat
 * object (tool arguments usually are), a value with the same entries is recognised without writing
 * its JSON at all; the digest of the entries' text is computed from the entries as read, so what is
 * remembered always belongs to the entries it is found by.
 */
export function createDigester(limit = DEFAULT_LIMIT): (value: unknown) => Buffer {
  const memo = createMemo<Buffer>(limit);
  let lastText: string | undefined;
  let lastEntries: FlatEntries | undefined;
  let lastDigest = EMPTY_DIGEST;
  return (value) => {
    if (value === undefined || value === null) return EMPTY_DIGEST;
    if (lastEntries !== undefined && sameEntries(value, lastEntries)) return lastDigest;
    const entries = flatEntries(value);
    let text: string;
    if (entries !== undefined) {
      // The values were read once and are scalars: no NaN can hide behind a `null`.
      text = entriesText(entries);
    } else {
      text = jsonText(value);
      // Before any remembered digest: the text of {x: NaN} is the text of {x: null}.
      if (text.includes('null')) canonicalJson(value);
      if (text === lastText) return lastDigest;
    }
    const digest = memo.get(text, () => textDigest(text));
    lastText = text;
    lastEntries = entries;
    lastDigest = digest;
    return digest;
  };
}
