/**
 * Who loses an entry when a bounded store needs room: the one rule the session binding and the task
 * guard share.
 *
 * Evicting the store's oldest entry, whoever holds it, lets one principal that opens `max` entries
 * end everyone else's. Here a principal at its quota makes room from its own entries only, and a
 * full store takes the entry from whoever holds the most (on a tie, the one whose oldest entry is
 * oldest): a principal loses an entry to another only while it holds at least as many as anyone,
 * so a caller's load stays on that caller, and memory stays bounded by the store's own cap.
 */

/** An entry to drop: its owner and its key. */
export type Victim = readonly [owner: string, key: string];

/** @internal Which owner holds which keys, oldest first. Owners are opaque strings (keyed tags). */
export interface QuotaIndex {
  /** Record `key` as `owner`'s newest entry (again, when it was used). */
  add(owner: string, key: string): void;
  /** Forget `key` of `owner`. */
  remove(owner: string, key: string): void;
  /**
   * The entry to drop before `owner` adds one, or `undefined` when there is room: `owner`'s own
   * oldest when it holds its quota (unless `exempt`), else, when the store is `full`, the oldest
   * entry of the owner holding the most.
   */
  victim(owner: string, full: boolean, exempt?: boolean): Victim | undefined;
}

/** @internal Validate a per-principal quota option: a positive count, floored. */
export function quotaOption(name: string, value: unknown, fallback: number): number {
  const v = value ?? fallback;
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 1) {
    throw new RangeError(`${name} must be a finite number of at least 1, got ${typeof value}`);
  }
  return Math.floor(v);
}

/** @internal Create an index that enforces `perOwner` entries per owner. */
export function createQuotaIndex(perOwner: number): QuotaIndex {
  // Per owner, its keys in use order, each with a global sequence number so owners can be compared
  // by how old their oldest entry is.
  const owners = new Map<string, Map<string, number>>();
  let sequence = 0;
  const oldest = (keys: Map<string, number>): [string, number] =>
    keys.entries().next().value as [string, number];

  return {
    add(owner, key) {
      let keys = owners.get(owner);
      if (keys === undefined) owners.set(owner, (keys = new Map()));
      keys.delete(key);
      keys.set(key, (sequence += 1));
    },
    remove(owner, key) {
      const keys = owners.get(owner);
      if (keys?.delete(key) === true && keys.size === 0) owners.delete(owner);
    },
    victim(owner, full, exempt = false) {
      const own = owners.get(owner);
      if (!exempt && own !== undefined && own.size >= perOwner) return [owner, oldest(own)[0]];
      if (!full) return undefined;
      let best: { owner: string; size: number; key: string; at: number } | undefined;
      for (const [candidate, keys] of owners) {
        const [key, at] = oldest(keys);
        if (
          best === undefined ||
          keys.size > best.size ||
          (keys.size === best.size && at < best.at)
        )
          best = { owner: candidate, size: keys.size, key, at };
      }
      return best && [best.owner, best.key];
    },
  };
}
