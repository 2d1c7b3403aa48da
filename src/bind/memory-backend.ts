/**
 * A handle store backend in this process's memory: for one instance, and for tests.
 */
import { createExpiringMap } from '../ledger/expiring-map.js';
import type { HandleStoreBackend } from './store.js';

/** Options of {@link createMemoryHandleBackend}. */
export interface MemoryHandleBackendOptions {
  /** Entries kept at most; when all are live, `set` fails (the store refuses to mint). Default 100000. */
  maxEntries?: number;
  /** Clock in milliseconds, like `Date.now`. */
  now?: () => number;
}

/** Create an in-memory handle store backend. Expired entries are pruned; memory stays bounded. */
export function createMemoryHandleBackend(
  options: MemoryHandleBackendOptions = {},
): HandleStoreBackend {
  const entries = createExpiringMap<string>({
    maxEntries: options.maxEntries ?? 100_000,
    now: options.now ?? Date.now,
  });
  return {
    async set(key, value, expiresAtMs) {
      if (!entries.set(key, value, expiresAtMs)) throw new Error('memory handle backend is full');
    },
    get: async (key) => entries.get(key),
    delete: async (key) => entries.delete(key),
    async close() {},
  };
}
