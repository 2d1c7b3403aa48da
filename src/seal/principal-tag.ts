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

/** `-` for an absent field, else its length and text: unambiguous without escaping. */
function field(value: string | undefined): string {
  return value === undefined ? '-' : `${value.length}:${value}`;
}

/**
 * The text a principal is tagged as, or `undefined` for no principal. Injective: a string (`s…`) and
 * an object (`o…`) never collide, nor do two objects, whatever their field order. An object with no
 * field set is no principal at all. Fields that are not strings (outside the type, but possible from
 * JavaScript) take the canonical-JSON road under their own prefix (`j…`) rather than being coerced.
 */
export function principalTagText(principal: Principal | undefined): string | undefined {
  if (principal === undefined) return undefined;
  if (typeof principal === 'string') return `s${principal}`;
  if (typeof principal !== 'object' || principal === null) {
    throw new TypeError(`principal must be a string or an object, got ${typeof principal}`);
  }
  const { clientId, issuer, subject } = principal;
  if (clientId === undefined && issuer === undefined && subject === undefined) return undefined;
  if (
    (clientId === undefined || typeof clientId === 'string') &&
    (issuer === undefined || typeof issuer === 'string') &&
    (subject === undefined || typeof subject === 'string')
  ) {
    return `o${field(clientId)}${field(issuer)}${field(subject)}`;
  }
  return `j${canonicalJson({ clientId, issuer, subject })}`;
}

/** Create a tagger that remembers the tags of up to `limit` recent principals per key. */
export function createPrincipalTagger(tagBytes: number, limit = DEFAULT_LIMIT): PrincipalTagger {
  const memos = new WeakMap<DerivedKey, Memo<Buffer>>();
  return (key, principal) => {
    const text = principalTagText(principal);
    if (text === undefined) return undefined;
    let memo = memos.get(key);
    if (memo === undefined) memos.set(key, (memo = createMemo(limit)));
    return memo.get(text, () => keyedTag(key.tag, text, tagBytes));
  };
}
