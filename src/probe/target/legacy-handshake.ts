/**
 * A legacy (2025-11-25) server's handshake: `initialize`, then `notifications/initialized`, as one
 * identity, keeping the session id the server hands out for it.
 */
import type { IdentityName } from '../model/target.js';
import type { Outcome } from '../model/wire.js';
import { LEGACY_CAPABILITIES } from './capabilities.js';
import { LEGACY_VERSION } from './session-options.js';
import { identityHeaders, keepSession, type Wire } from './session-wire.js';

/** Sends one request of the handshake and resolves with its outcome. */
export type HandshakeSend = (
  method: string,
  label: string,
  params: Record<string, unknown>,
) => Promise<Outcome>;

/**
 * `initialize` and `notifications/initialized` as `identity`, sent through `send`, keeping the
 * session id the server hands out for that identity. A is initialized while the era is decided; B
 * on its first request.
 */
export async function initializeAs(
  wire: Wire,
  identity: IdentityName,
  send: HandshakeSend,
): Promise<{ outcome: Outcome }> {
  const { target, options } = wire;
  const outcome = await send(
    'initialize',
    identity === 'A' ? 'era: legacy initialize' : `legacy initialize as ${identity}`,
    {
      protocolVersion: wire.negotiated ?? LEGACY_VERSION,
      capabilities: LEGACY_CAPABILITIES,
      clientInfo: options.clientInfo,
    },
  );
  if (outcome.kind !== 'result' || typeof outcome.result.protocolVersion !== 'string')
    return { outcome };
  const sid = wire.lastSessionId;
  if (sid) keepSession(wire, identity, sid);
  else delete wire.sessionHeaders[identity];
  await wire.channel.notify(
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    {
      label: 'notifications/initialized',
      identity,
      ...(target.kind === 'http'
        ? {
            ...(options.identityHeader === undefined
              ? { bearer: options.identities[identity] }
              : {}),
            protocolVersion: outcome.result.protocolVersion,
          }
        : {}),
      headers: { ...(wire.sessionHeaders[identity] ?? {}), ...identityHeaders(wire, identity) },
      signal: AbortSignal.timeout(options.timeoutMs),
    },
  );
  return { outcome };
}
