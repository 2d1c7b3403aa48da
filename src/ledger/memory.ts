/**
 * The single-use ledger of one process. It holds across the requests of one server, not across
 * instances: a fleet needs the Redis ledger.
 */
import { LedgerUnavailableError } from '../errors.js';
import { createExpiringMap } from './expiring-map.js';
import { checkConsume } from './check.js';
import type { SingleUseLedger } from './types.js';

/** Options of {@link createMemoryLedger}. */
export interface MemoryLedgerOptions {
  /** Ids remembered at most. When all are live, consumes are refused (fail closed). Default 100000. */
  maxEntries?: number;
  /** Clock in milliseconds, like `Date.now`. */
  now?: () => number;
}

/** A single-use ledger in memory. */
export interface MemoryLedger extends SingleUseLedger {
  /** Ids held, including expired ones not yet pruned. */
  readonly size: number;
}

/**
 * Create a single-use ledger in this process's memory. Expired ids are pruned; memory stays bounded
 * by `maxEntries`, and a ledger full of live ids refuses with `LedgerUnavailableError` rather than
 * forget one (forgetting would allow a replay).
 */
export function createMemoryLedger(options: MemoryLedgerOptions = {}): MemoryLedger {
  const now = options.now ?? Date.now;
  const consumed = createExpiringMap<true>({ maxEntries: options.maxEntries ?? 100_000, now });
  let closed = false;
  return {
    // No await before the check-and-set: JavaScript runs it to completion, so it is atomic.
    async consume(id, expiresAtMs) {
      checkConsume(id, expiresAtMs);
      if (closed) throw new LedgerUnavailableError();
      if (consumed.get(id) !== undefined) return false;
      if (!consumed.set(id, true, expiresAtMs)) throw new LedgerUnavailableError();
      return true;
    },
    async close() {
      closed = true;
    },
    get size() {
      return consumed.size;
    },
  };
}
