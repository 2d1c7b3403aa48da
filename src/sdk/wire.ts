/**
 * What a guarded server answers on the wire when it refuses a round.
 */
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import type { StateRejection } from '../errors.js';

/** The frozen message of every refused `requestState`: the SDK's own, so clients see one answer. */
export const INVALID_STATE_MESSAGE = 'Invalid or expired requestState';

/** The frozen message of a refusal caused by the server itself (fail closed). */
export const INTERNAL_ERROR_MESSAGE = 'Internal error';

/**
 * The client's fault: `-32602` with the SDK's message and `data`, whatever the reason. Stay
 * indistinguishable: a tampered, expired, foreign or replayed state all read the same.
 */
export function invalidStateError(): ProtocolError {
  return new ProtocolError(ProtocolErrorCode.InvalidParams, INVALID_STATE_MESSAGE, {
    reason: 'invalid_request_state',
  });
}

/**
 * The server's fault (a ledger that cannot answer, a principal resolver that threw): `-32603`. The
 * request is refused all the same; the cause stays in the logger hook, never on the wire.
 */
export function internalError(): ProtocolError {
  return new ProtocolError(ProtocolErrorCode.InternalError, INTERNAL_ERROR_MESSAGE);
}

/**
 * The reasons that are the server's own fault, answered `-32603`: the request is refused all the
 * same. Every other reason is the client's (its state, its arguments) and answers the frozen
 * `-32602`.
 */
const SERVER_FAULTS: ReadonlySet<StateRejection> = new Set<StateRejection>([
  'ledger-unavailable',
  'principal-unavailable',
  'clock-unavailable',
  'unsealable',
  'ephemeral-key',
]);

/** The wire error of a refusal, by its reason. */
export function refusalError(reason: StateRejection): ProtocolError {
  return SERVER_FAULTS.has(reason) ? internalError() : invalidStateError();
}
