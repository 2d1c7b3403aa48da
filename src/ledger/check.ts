/**
 * Argument checks shared by the ledgers. A bad id or expiry is a programming error, so it throws
 * `TypeError` (with the value's type or length, never its content) instead of answering.
 */

/** The longest id a ledger accepts, in characters. Sealed token ids are 22. */
export const MAX_ID_LENGTH = 256;

/** @internal Validate the arguments of `SingleUseLedger.consume`. */
export function checkConsume(id: unknown, expiresAtMs: unknown): void {
  if (typeof id !== 'string' || id.length === 0 || id.length > MAX_ID_LENGTH) {
    const got = typeof id === 'string' ? `length ${id.length}` : typeof id;
    throw new TypeError(`id must be a string of 1-${MAX_ID_LENGTH} characters, got ${got}`);
  }
  if (typeof expiresAtMs !== 'number' || !Number.isFinite(expiresAtMs)) {
    throw new TypeError(`expiresAtMs must be a finite number, got ${typeof expiresAtMs}`);
  }
}
