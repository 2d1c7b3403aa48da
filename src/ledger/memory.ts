/**
 * The single-use ledger of one process. It holds across the requests of one server, not across
 * instances: a fleet needs the Redis ledger.
 */
import { LedgerUnavailableError } from '../errors.js';
import { clockOption, readClock } from '../seal/clock.js';
import { createExpiringMap } from './expiring-map.js';
import { checkConsume, clockSkewOption } from './check.js';
import type { SingleUseLedger } from './types.js';

/** Options of {@link createMemoryLedger}. */
export interface MemoryLedgerOptions {
  /** Ids remembered at most. When all are live, consumes are refused (fail closed). Default 100000. */
  maxEntries?: number;
  /**
   * Extra time an id is remembered past its lifetime, in milliseconds. Default 60000, as in the
   * Redis ledger: the guard that judged the token live may run on another clock (its `now` option),
   * and a few seconds of drift between the two must not let a replay through.
   */
  clockSkewMs?: number;
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
 * forget one (forgetting would allow a replay). So does a clock that returns no usable time.
 *
 * A restarted process starts with an empty ledger: with keys that outlive the process, a round
 * used before the restart opens again after it. Use the Redis ledger where that matters.
 */
export function createMemoryLedger(options: MemoryLedgerOptions = {}): MemoryLedger {
  const now = clockOption(options.now);
  const skew = clockSkewOption(options.clockSkewMs);
  const consumed = createExpiringMap<true>({ maxEntries: options.maxEntries ?? 100_000, now });
  let closed = false;
  return {
    // No await before the check-and-set: JavaScript runs it to completion, so it is atomic.
    // The token's age is not used: this ledger lives and dies with its process, so it never sees
    // its own memory lost (a restarted process starts an empty ledger; see createMemoryLedger).
    async consume(id, ttlMs, issuedAgoMs) {
      checkConsume(id, ttlMs, issuedAgoMs);
      if (closed) throw new LedgerUnavailableError();
      const at = readClock(now);
      if (at === undefined) throw new LedgerUnavailableError();
      try {
        if (consumed.get(id) !== undefined) return false;
        // Stryker disable next-line BooleanLiteral: only `!== undefined` is ever asked of the stored value, which false passes too.
        if (consumed.set(id, true, at + Math.ceil(ttlMs) + skew)) return true;
      } catch (error) {
        throw new LedgerUnavailableError({ cause: error });
      }
      throw new LedgerUnavailableError();
    },
    async close() {
      closed = true;
    },
    get size() {
      return consumed.size;
    },
  };
}
