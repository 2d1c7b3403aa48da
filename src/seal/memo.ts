/**
 * A bounded memo for pure functions of short strings: at most twice `limit` entries, the least
 * recently used forgotten first (by generation). The sealer remembers principal tags and argument
 * digests with it, because the rounds of a flow present the same principal and arguments again and
 * again, and both cost a hash per use.
 *
 * Only ever a cache of values that are recomputed identically on a miss: forgetting is always safe.
 */

/** Keys longer than this are not remembered: the memo must stay small whatever callers send. */
export const MAX_MEMO_KEY = 1024;

/** A bounded memo from string keys to values (never `undefined`: that reads as a miss). */
export interface Memo<V extends NonNullable<unknown>> {
  /** The remembered value, or `compute()` (remembered when the key is short enough). */
  get(key: string, compute: () => V): V;
}

/**
 * Create a memo of at most `limit` entries per generation. Two generations instead of strict
 * least-recently-used order: new keys go into the young one, and when it is full it becomes the old
 * one and the previous old one is dropped whole. A hit in the old generation moves the key to the
 * young one, so keys in use survive. Nothing is ever deleted key by key: a Map that churns through
 * deletions grows slow, and a flow's cold path (a new principal, new arguments) would pay for it.
 */
export function createMemo<V extends NonNullable<unknown>>(limit: number): Memo<V> {
  let young = new Map<string, V>();
  let old = new Map<string, V>();
  const remember = (key: string, value: V): V => {
    if (young.size >= limit) {
      old = young;
      young = new Map();
    }
    young.set(key, value);
    return value;
  };
  return {
    get(key, compute) {
      if (key.length > MAX_MEMO_KEY) return compute();
      // One lookup, not has() then get(): hashing and comparing a fresh key string is the cost.
      const known = young.get(key);
      if (known !== undefined) return known;
      const elder = old.get(key);
      return remember(key, elder !== undefined ? elder : compute());
    },
  };
}
