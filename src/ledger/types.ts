/**
 * A single-use ledger: remembers which token ids were consumed, until they could no longer open anyway.
 */

/** Consumes ids at most once. Shared storage makes it hold across instances. */
export interface SingleUseLedger {
  /**
   * Atomically record `id` as consumed until `expiresAtMs` (epoch milliseconds).
   * Resolves `true` for the first consumer and `false` for every later one.
   * Rejects with `LedgerUnavailableError` when the store cannot answer: callers must refuse (fail closed).
   */
  consume(id: string, expiresAtMs: number): Promise<boolean>;
  /** Release connections or timers. */
  close(): Promise<void>;
}
