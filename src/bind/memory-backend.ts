/**
 * A handle store backend in this process's memory: for one instance, and for tests.
 */
import { createExpiringMap } from '../ledger/expiring-map.js';
import { readClock } from '../seal/clock.js';
import { quotaOption } from './quota.js';
import type { HandleStoreBackend } from './store.js';

/** Options of {@link createMemoryHandleBackend}. */
export interface MemoryHandleBackendOptions {
  /** Entries kept at most; when all are live, `set` fails (the store refuses to mint). Default 100000. */
  maxEntries?: number;
  /**
   * Live entries one principal holds at most (the part of the key before its first `:`, which is
   * the principal's keyed tag in a store's keys). One more fails (the store refuses to mint for
   * that principal alone) until one of its handles expires or is revoked. Default 1000.
   */
  maxEntriesPerPrincipal?: number;
  /** Clock in milliseconds, like `Date.now`. */
  now?: () => number;
}

/** The holder of a store key: `<principal tag>:<handle id>`, or the key itself without a `:`. */
function ownerOf(key: string): string {
  const colon = key.indexOf(':');
  return colon < 0 ? key : key.slice(0, colon);
}

/**
 * Create an in-memory handle store backend. Expired entries are pruned; memory stays bounded.
 *
 * A full backend refuses rather than evict: a dropped entry would read as a revoked handle. So that
 * one principal cannot fill it and lock every other principal out of minting, each principal holds
 * at most `maxEntriesPerPrincipal` live entries; past it only that principal is refused.
 */
export function createMemoryHandleBackend(
  options: MemoryHandleBackendOptions = {},
): HandleStoreBackend {
  const now = options.now ?? Date.now;
  const maxEntries = options.maxEntries ?? 100_000;
  const perPrincipal = quotaOption('maxEntriesPerPrincipal', options.maxEntriesPerPrincipal, 1_000);
  const entries = createExpiringMap<string>({ maxEntries, now });
  // Per principal, its keys and their expiry. Expired keys linger here until their principal writes
  // again, or until stale ones outnumber the live bound, when all are pruned at once (amortised).
  const owned = new Map<string, Map<string, number>>();
  let tracked = 0;
  const forget = (owner: string, keys: Map<string, number>, key: string): void => {
    if (!keys.delete(key)) return;
    tracked -= 1;
    if (keys.size === 0) owned.delete(owner);
  };
  const pruneExpired = (owner: string, keys: Map<string, number>, at: number): void => {
    for (const [key, expiresAt] of keys) if (expiresAt <= at) forget(owner, keys, key);
  };

  return {
    async set(key, value, expiresAtMs) {
      const owner = ownerOf(key);
      const at = readClock(now);
      // A clock with no usable time would prune every key as expired: refuse, as the map does.
      if (at === undefined) throw new RangeError('now() must return a time in milliseconds');
      if (tracked >= 2 * maxEntries) for (const [o, keys] of owned) pruneExpired(o, keys, at);
      const keys = owned.get(owner);
      if (keys !== undefined && !keys.has(key) && keys.size >= perPrincipal) {
        pruneExpired(owner, keys, at);
        if (keys.size >= perPrincipal) {
          throw new Error('memory handle backend: this principal holds its quota of live entries');
        }
      }
      if (!entries.set(key, value, expiresAtMs)) throw new Error('memory handle backend is full');
      let mine = owned.get(owner);
      if (mine === undefined) owned.set(owner, (mine = new Map()));
      if (!mine.has(key)) tracked += 1;
      mine.set(key, expiresAtMs);
    },
    get: async (key) => entries.get(key),
    async delete(key) {
      const removed = entries.delete(key);
      const owner = ownerOf(key);
      const keys = owned.get(owner);
      if (keys !== undefined) forget(owner, keys, key);
      return removed;
    },
    async close() {},
  };
}
