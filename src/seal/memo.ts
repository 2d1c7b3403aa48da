/**
 * A bounded memo for pure functions of short strings: at most `limit` entries, the oldest forgotten
 * first. The sealer remembers principal tags and argument digests with it, because the rounds of a
 * flow present the same principal and arguments again and again, and both cost a hash per use.
 *
 * Only ever a cache of values that are recomputed identically on a miss: forgetting is always safe.
 */

/** Keys longer than this are not remembered: the memo must stay small whatever callers send. */
export const MAX_MEMO_KEY = 1024;

/** A bounded memo from string keys to values. */
export interface Memo<V> {
  /** The remembered value, or `compute()` (remembered when the key is short enough). */
  get(key: string, compute: () => V): V;
}

/** Create a memo of at most `limit` entries. */
export function createMemo<V>(limit: number): Memo<V> {
  const entries = new Map<string, V>();
  // Insertion order in a ring: evicting the oldest is O(1). (Deleting a Map's first key and asking
  // for the next first key walks past every deleted slot since the last rehash: slow under churn.)
  const order: (string | undefined)[] = new Array<string | undefined>(limit);
  let next = 0;
  return {
    get(key, compute) {
      if (key.length > MAX_MEMO_KEY) return compute();
      if (entries.has(key)) return entries.get(key) as V;
      const value = compute();
      const oldest = order[next];
      if (oldest !== undefined) entries.delete(oldest);
      order[next] = key;
      next = (next + 1) % limit;
      entries.set(key, value);
      return value;
    },
  };
}
