/**
 * Argument checks shared by the ledgers. A bad id or lifetime is a programming error, so it throws
 * `TypeError` (with the value's type or length, never its content) instead of answering.
 */

/** The longest id a ledger accepts, in characters. Sealed token ids are 22. */
export const MAX_ID_LENGTH = 256;

/**
 * The longest lifetime a ledger accepts: 366 days. An absolute time in epoch milliseconds (what
 * `consume` took before it took a lifetime) is far above it, so a caller still passing one is
 * refused loudly instead of having its ids kept for decades, or forgotten at once.
 */
export const MAX_TTL_MS = 366 * 24 * 3600 * 1000;

/** The default extra time an id is kept past its lifetime, in milliseconds. */
export const DEFAULT_CLOCK_SKEW_MS = 60_000;

/** @internal Validate the arguments of `SingleUseLedger.consume`. */
export function checkConsume(id: unknown, ttlMs: unknown, issuedAgoMs?: unknown): void {
  if (typeof id !== 'string' || id.length === 0 || id.length > MAX_ID_LENGTH) {
    const got = typeof id === 'string' ? `length ${id.length}` : typeof id;
    throw new TypeError(`id must be a string of 1-${MAX_ID_LENGTH} characters, got ${got}`);
  }
  // Stryker disable next-line ConditionalExpression: Number.isFinite is false for every non-number, so dropping the typeof test (there for TypeScript's narrowing) changes no answer.
  if (typeof ttlMs !== 'number' || !Number.isFinite(ttlMs) || ttlMs <= 0 || ttlMs > MAX_TTL_MS) {
    throw new TypeError(
      `ttlMs must be a lifetime of 1 ms to 366 days, got ${typeof ttlMs === 'number' ? 'a number out of range' : typeof ttlMs}`,
    );
  }
  // An age, not a time: negative when the issuer's clock runs ahead of the caller's.
  if (
    issuedAgoMs !== undefined &&
    // Stryker disable next-line ConditionalExpression: Number.isFinite is false for every non-number, so dropping the typeof test (there for TypeScript's narrowing) changes no answer.
    (typeof issuedAgoMs !== 'number' ||
      !Number.isFinite(issuedAgoMs) ||
      Math.abs(issuedAgoMs) > MAX_TTL_MS)
  ) {
    throw new TypeError(
      `issuedAgoMs must be an age within 366 days, got ${typeof issuedAgoMs === 'number' ? 'a number out of range' : typeof issuedAgoMs}`,
    );
  }
}

/** @internal Validate a `clockSkewMs` option. */
export function clockSkewOption(value: unknown): number {
  const skew = value ?? DEFAULT_CLOCK_SKEW_MS;
  // Stryker disable next-line ConditionalExpression: Number.isFinite is false for every non-number, so dropping the typeof test (there for TypeScript's narrowing) changes no answer.
  if (typeof skew !== 'number' || !Number.isFinite(skew) || skew < 0) {
    throw new RangeError(`clockSkewMs must be a non-negative finite number, got ${typeof skew}`);
  }
  return skew;
}
