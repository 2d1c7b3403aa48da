/**
 * What a guarded server answers on the wire when it refuses a round.
 */
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';

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
