/**
 * Keyed tags of principals for sealed states, remembered for the principals seen recently.
 *
 * The tag is HMAC-SHA256 under the purpose's tag sub-key over an unambiguous encoding of the
 * principal. It is a pure function of (key, principal), and a flow's rounds present the same principal
 * again and again, so the last few hundred tags per key are remembered: nothing about what is bound or
 * compared changes, only repeated work is skipped. What a hit reveals through timing is only that this
 * principal was seen recently by this process, and a caller can only present its own verified
 * principal.
 */
import { canonicalJson, type Principal } from './binding.js';
import { keyedTag, type DerivedKey } from './key.js';
import { createMemo, type Memo } from './memo.js';

const DEFAULT_LIMIT = 512;

/** Computes the keyed tag of a principal under a derived key, or `undefined` when there is none. */
export type PrincipalTagger = (
  key: DerivedKey,
  principal: Principal | undefined,
) => Buffer | undefined;

/**
 * Whether one identifying value names no one: absent, `null`, or a string of whitespace alone. The
 * one rule every binder applies (through {@link principalTagText} and the tagger below): a resolver
 * that answers `""` for a caller it could not name must not make every such caller one principal
 * that shares the others' states, handles, tasks and sessions.
 */
export function isBlankIdentity(value: unknown): boolean {
  return (
    value === undefined || value === null || (typeof value === 'string' && value.trim() === '')
  );
}

/** `-` for an absent field, else its length and text: unambiguous without escaping. */
function field(value: string | undefined): string {
  return value === undefined ? '-' : `${value.length}:${value}`;
}

/** The three fields of an object principal, read once. */
type Fields = readonly [clientId: unknown, issuer: unknown, subject: unknown];

/** The text of an object principal's fields (see {@link principalTagText}). */
function fieldsText(fields: Fields): string | undefined {
  if (fields.every(isBlankIdentity)) return undefined;
  const [clientId, issuer, subject] = fields;
  if (
    (clientId === undefined || typeof clientId === 'string') &&
    (issuer === undefined || typeof issuer === 'string') &&
    (subject === undefined || typeof subject === 'string')
  ) {
    return `o${field(clientId)}${field(issuer)}${field(subject)}`;
  }
  return `j${canonicalJson({ clientId, issuer, subject })}`;
}

/** Read an object principal's fields once (a getter is never asked twice), or throw for a non-object. */
function fieldsOf(principal: object): Fields {
  const { clientId, issuer, subject } = principal as Record<string, unknown>;
  return [clientId, issuer, subject];
}

/**
 * Whether `principal` names no one: `undefined`, a blank string, or an object whose every identifying
 * field (`clientId`, `issuer`, `subject`) is blank ({@link isBlankIdentity}). Every binder treats
 * such a principal exactly as a missing one. Throws `TypeError` (naming the type) for a value that
 * is neither a string nor an object.
 */
export function isEmptyPrincipal(principal: Principal | undefined): boolean {
  return principalTagText(principal) === undefined;
}

/** What a principal is, for a misuse message: its type or length, never its content. */
export function describePrincipal(principal: unknown): string {
  if (typeof principal === 'string') return `a string of length ${principal.length}`;
  if (typeof principal === 'object' && principal !== null) return 'an object naming no one';
  return typeof principal;
}

/**
 * The text a principal is tagged as, or `undefined` for no principal. Injective: a string (`s…`) and
 * an object (`o…`) never collide, nor do two objects, whatever their field order. An empty
 * principal ({@link isEmptyPrincipal}) is no principal at all. Fields that are not strings (outside
 * the type, but possible from JavaScript) take the canonical-JSON road under their own prefix (`j…`) rather than being coerced.
 */
export function principalTagText(principal: Principal | undefined): string | undefined {
  if (principal === undefined) return undefined;
  if (typeof principal === 'string')
    return isBlankIdentity(principal) ? undefined : `s${principal}`;
  if (typeof principal !== 'object' || principal === null) {
    throw new TypeError(`principal must be a string or an object, got ${typeof principal}`);
  }
  return fieldsText(fieldsOf(principal));
}

/** Create a tagger that remembers the tags of up to `limit` recent principals per key. */
export function createPrincipalTagger(tagBytes: number, limit = DEFAULT_LIMIT): PrincipalTagger {
  const memos = new WeakMap<DerivedKey, Memo<Buffer>>();
  // The last principal tagged, field by field, in front of the memo: the rounds of a flow present
  // the same principal again, and comparing three strings is cheaper than building and hashing its
  // text. Only strings and `undefined` are kept, and `===` on them compares values, so a hit is
  // exactly the principal whose tag this is.
  let lastKey: DerivedKey | undefined;
  let lastString: string | undefined;
  let lastFields: Fields | undefined;
  let lastTag: Buffer | undefined;

  const tagOf = (key: DerivedKey, text: string): Buffer => {
    let memo = memos.get(key);
    // Stryker disable next-line ConditionalExpression: a cache of tags, which are recomputed identically on a miss.
    if (memo === undefined) memos.set(key, (memo = createMemo(limit)));
    return memo.get(text, () => keyedTag(key.tag, text, tagBytes));
  };

  return (key, principal) => {
    if (principal === undefined) return undefined;
    if (typeof principal === 'string') {
      // Stryker disable next-line ConditionalExpression,EqualityOperator: the last-principal shortcut in front of the memo: skipping it recomputes the same tag, and it only matches when key and principal are the same. lastTag is only ever undefined before the first tag, when lastKey is undefined too.
      if (key === lastKey && principal === lastString && lastTag !== undefined) return lastTag;
      if (isBlankIdentity(principal)) return undefined;
      const tag = tagOf(key, `s${principal}`);
      lastKey = key;
      lastString = principal;
      lastFields = undefined;
      lastTag = tag;
      return tag;
    }
    if (typeof principal !== 'object' || principal === null) {
      throw new TypeError(`principal must be a string or an object, got ${typeof principal}`);
    }
    const fields = fieldsOf(principal);
    // Stryker disable BlockStatement: the last-principal shortcut in front of the memo: skipping it recomputes the same tag, and it only matches when key and principal are the same.
    if (
      // Stryker disable next-line ConditionalExpression: the last-principal shortcut in front of the memo: skipping it recomputes the same tag, and it only matches when key and principal are the same.
      key === lastKey &&
      lastFields !== undefined &&
      // Stryker disable next-line ConditionalExpression,EqualityOperator: the last-principal shortcut in front of the memo: skipping it recomputes the same tag, and it only matches when key and principal are the same. lastFields is only set together with lastTag.
      lastTag !== undefined &&
      fields[0] === lastFields[0] &&
      fields[1] === lastFields[1] &&
      fields[2] === lastFields[2]
    ) {
      return lastTag;
    }
    // Stryker restore BlockStatement
    const text = fieldsText(fields);
    if (text === undefined) return undefined;
    const tag = tagOf(key, text);
    // Only an `o…` text (every field a string or absent) may be matched by `===` next time: an
    // object field compares by identity, and its content could have changed since.
    lastKey = key;
    lastString = undefined;
    // Stryker disable next-line ConditionalExpression,StringLiteral: the last-principal shortcut in front of the memo: skipping it recomputes the same tag, and it only matches when key and principal are the same.
    lastFields = text[0] === 'o' ? fields : undefined;
    lastTag = tag;
    return tag;
  };
}
