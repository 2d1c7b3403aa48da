/**
 * Every error stateguard throws on purpose. A closed union of codes, one class per code (jose shape).
 *
 * Rejections of client-held values (`requestState`, handles) carry a `reason` from a closed vocabulary
 * for operator logs and tests. The message never varies and never carries payload, principal or key
 * material: stay indistinguishable.
 */

/** The closed set of error codes. */
export const ERROR_CODES = [
  'ERR_STATE_REJECTED',
  'ERR_HANDLE_REJECTED',
  'ERR_LEDGER_UNAVAILABLE',
  'ERR_PROBE_USAGE',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

/**
 * Why a `requestState` (or a guarded request) was refused. For server logs only; never answered
 * differently on the wire. The sealer uses the first nine; the guard adds the rest.
 */
export const STATE_REJECTIONS = [
  'malformed',
  'too-large',
  'unknown-key',
  'auth',
  'expired',
  'flow-expired',
  'principal',
  'request',
  'audience',
  'replayed',
  'arguments-too-large',
  'ledger-unavailable',
  'principal-unavailable',
  'clock-unavailable',
  'unsealable',
  'ephemeral-key',
] as const;
export type StateRejection = (typeof STATE_REJECTIONS)[number];

/** Why a handle was refused. For server logs only; the tool answers every one the same way. */
export const HANDLE_REJECTIONS = [
  'malformed',
  'too-large',
  'unknown-key',
  'auth',
  'expired',
  'principal',
  'kind',
  'audience',
  'revoked',
  'store-unavailable',
] as const;
export type HandleRejection = (typeof HANDLE_REJECTIONS)[number];

/**
 * Why a legacy session id opened no session (`createSessionBinding`). For server logs only: the
 * server answers every one as it answers an unknown id.
 */
export const SESSION_REJECTIONS = [
  'missing',
  'malformed',
  'unknown',
  'expired',
  'principal',
  'no-principal',
  'clock-unavailable',
] as const;
export type SessionRejection = (typeof SESSION_REJECTIONS)[number];

/** Base class of every stateguard error. */
export class StateguardError extends Error {
  readonly code: ErrorCode;
  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/** A `requestState` token could not be opened. One message whatever the reason. */
export class StateRejectedError extends StateguardError {
  readonly reason: StateRejection;
  constructor(reason: StateRejection) {
    // Opaque reason only: never interpolate payload, principal or key material.
    super('ERR_STATE_REJECTED', 'requestState could not be opened');
    this.reason = reason;
  }
}

/** A handle could not be opened for this principal and kind. One message whatever the reason. */
export class HandleRejectedError extends StateguardError {
  readonly reason: HandleRejection;
  constructor(reason: HandleRejection) {
    super('ERR_HANDLE_REJECTED', 'handle is unknown, expired or not yours');
    this.reason = reason;
  }
}

/** A single-use ledger could not answer. Callers must refuse the request: fail closed. */
export class LedgerUnavailableError extends StateguardError {
  constructor(options?: { cause?: unknown }) {
    super('ERR_LEDGER_UNAVAILABLE', 'single-use ledger is unavailable', options);
  }
}

/** Bad scanner usage or configuration (exit code 2). */
export class ProbeUsageError extends StateguardError {
  constructor(message: string) {
    super('ERR_PROBE_USAGE', message);
  }
}
