/**
 * A single-use ledger: remembers which token ids were consumed, until they could no longer open anyway.
 */

/** Consumes ids at most once. Shared storage makes it hold across instances. */
export interface SingleUseLedger {
  /**
   * Atomically record `id` as consumed for the next `ttlMs` milliseconds (a lifetime, not a time:
   * the caller measured it on the clock that judged the token live, and the ledger counts it down
   * on its own, so two hosts' clocks are never compared). Implementations keep the id a skew margin
   * longer. Resolves `true` for the first consumer and `false` for every later one. Rejects with
   * `LedgerUnavailableError` when the store cannot answer: callers must refuse (fail closed).
   *
   * `issuedAgoMs` is how long ago the token was issued, measured on the same clock as `ttlMs`. A
   * shared store that has lost its memory (a Redis restarted without persistence, flushed, failed
   * over to a replica that lagged) cannot know whether a token issued before the loss was already
   * used; given the age, the Redis ledger refuses exactly those tokens (and, without it, every
   * token) once it has seen the loss. The guard always passes it.
   */
  consume(id: string, ttlMs: number, issuedAgoMs?: number): Promise<boolean>;
  /** Release connections or timers. */
  close(): Promise<void>;
}
