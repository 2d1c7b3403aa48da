/**
 * A bounded in-memory map whose entries expire: the storage of the memory ledger and the memory handle
 * backend.
 *
 * It never evicts a live entry to make room. For a single-use ledger, forgetting a live id would let
 * it be replayed, so a full map refuses new entries instead (the caller fails closed) until expired
 * ones can be pruned. Pruning is a full sweep, run when the map is full and every `sweepEvery` writes,
 * so its cost is amortised and no timer keeps the process alive.
 */
import { clockOption, readClock } from '../seal/clock.js';

/** Options of {@link createExpiringMap}. */
export interface ExpiringMapOptions {
  /** Live entries kept at most. */
  maxEntries: number;
  /** Clock in milliseconds, like `Date.now`. */
  now: () => number;
  /** Writes between two sweeps. Default 1024. */
  sweepEvery?: number;
}

/** @internal A bounded map of expiring entries. */
export interface ExpiringMap<V> {
  /** The live value of `key`, or `undefined`. */
  get(key: string): V | undefined;
  /**
   * Store `value` until `expiresAt` (on this map's clock); `false` when the map is full of live
   * entries. Every operation throws `RangeError` when the clock returns no usable time.
   */
  set(key: string, value: V, expiresAt: number): boolean;
  /** Remove `key`; `true` when a live entry was removed. */
  delete(key: string): boolean;
  /** Entries held, live or not yet swept. */
  readonly size: number;
}

/** @internal Create a bounded map of expiring entries. */
export function createExpiringMap<V>(options: ExpiringMapOptions): ExpiringMap<V> {
  const { maxEntries } = options;
  const now = clockOption(options.now);
  // Every operation reads the time here. A clock with no usable time throws rather than answer:
  // with NaN every entry would look dead, and a ledger would call every replay a first use.
  const time = (): number => {
    const at = readClock(now);
    if (at === undefined) throw new RangeError('now() must return a time in milliseconds');
    return at;
  };
  if (!Number.isSafeInteger(maxEntries) || maxEntries <= 0) {
    throw new RangeError(`maxEntries must be a positive integer, got ${typeof maxEntries}`);
  }
  const sweepEvery = options.sweepEvery ?? 1024;
  const entries = new Map<string, { value: V; expiresAt: number }>();
  let writes = 0;

  const sweep = (at: number): void => {
    for (const [key, entry] of entries) if (entry.expiresAt <= at) entries.delete(key);
  };
  const live = (key: string, at: number): { value: V; expiresAt: number } | undefined => {
    const entry = entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAt > at) return entry;
    entries.delete(key);
    return undefined;
  };

  return {
    get: (key) => live(key, time())?.value,
    set(key, value, expiresAt) {
      const at = time();
      // Stryker disable next-line AssignmentOperator: counting down (-1, -2, …) meets every multiple of sweepEvery at the same writes (-n % n is -0, which === 0).
      writes += 1;
      if (writes % sweepEvery === 0) sweep(at);
      if (!entries.has(key) && entries.size >= maxEntries) {
        sweep(at);
        if (entries.size >= maxEntries) return false;
      }
      entries.set(key, { value, expiresAt });
      return true;
    },
    delete(key) {
      const had = live(key, time()) !== undefined;
      entries.delete(key);
      return had;
    },
    get size() {
      return entries.size;
    },
  };
}
