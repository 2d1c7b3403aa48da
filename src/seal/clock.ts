/**
 * The one clock reader of the library. Every module that asks a caller-supplied clock for the time
 * (the sealer, the handle binder, the ledgers, the memory maps) reads it here, so a clock that
 * returns no usable time is refused the same way everywhere.
 *
 * Why it matters: a comparison with `NaN` is always false. `now() >= expiresAt` then never says
 * "expired" (a handle would open forever), and `expiresAt > now()` never says "live" (a ledger
 * would forget every id and call each replay a first use). Both fail open, in opposite directions.
 */

/** Largest time the 48-bit claim fields hold (about the year 10889). */
export const MAX_TIME = 2 ** 48 - 1;

/** A clock in milliseconds since the epoch, like `Date.now`. */
export type Clock = () => number;

/**
 * The clock's reading as a whole millisecond in `[0, 2^48)`, or `undefined` when the clock returns
 * no usable time (not a number, NaN, ±Infinity, negative, beyond the claims' range) or throws.
 * Callers refuse on `undefined`: a clock that cannot say what time it is cannot prove anything live.
 */
export function readClock(now: Clock): number | undefined {
  let raw: unknown;
  // Stryker disable BlockStatement: without the early return the reading stays undefined, which the typeof test refuses the same way.
  try {
    raw = now();
  } catch {
    return undefined;
  }
  // Stryker restore BlockStatement
  if (typeof raw !== 'number') return undefined;
  const at = Math.floor(raw);
  return Number.isFinite(at) && at >= 0 && at <= MAX_TIME ? at : undefined;
}

/** The clock option, checked at construction: a function, or `Date.now` when absent. */
export function clockOption(now: unknown): Clock {
  const clock = now ?? Date.now;
  if (typeof clock !== 'function') throw new TypeError(`now must be a function, got ${typeof now}`);
  return clock as Clock;
}
