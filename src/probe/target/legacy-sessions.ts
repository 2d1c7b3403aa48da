/**
 * A legacy HTTP server's sessions as the scan holds them (see {@link LegacySessions}): a probe may
 * open a fresh one, end one with `DELETE`, or read an identity's GET event stream.
 */
import type { Exchange, LegacySessions } from '../model/wire.js';
import { initializeAs } from './legacy-handshake.js';
import { LEGACY_VERSION } from './session-options.js';
import { request } from './session-request.js';
import { bearerOf, identityHeaders, sessionHeaderFor, type Wire } from './session-wire.js';

/** `signal`, bounded by `ms` and by the scan's deadline. */
function bounded(wire: Wire, signal: AbortSignal | undefined, ms: number): AbortSignal {
  return AbortSignal.any(
    [AbortSignal.timeout(ms), wire.options.signal, signal].filter(
      (s): s is AbortSignal => s !== undefined,
    ),
  );
}

/** The sessions of a legacy HTTP server on `wire`. */
export function legacySessions(wire: Wire): LegacySessions {
  const { options, channel } = wire;
  return {
    idOf: (identity) => wire.sessionHeaders[identity]?.['mcp-session-id'],
    async open(identity, label, signal) {
      wire.initialized.add(identity);
      let exchange: Exchange | undefined;
      await initializeAs(wire, identity, async (method, _label, params) => {
        exchange = await request(wire, method, params, {
          identity,
          label,
          ...(signal === undefined ? {} : { signal }),
        });
        return exchange.outcome;
      });
      return exchange as Exchange;
    },
    async terminate(identity, label, signal) {
      const reply = await channel.remove!({
        label,
        identity,
        ...bearerOf(wire, identity),
        protocolVersion: wire.negotiated ?? LEGACY_VERSION,
        headers: { ...(wire.sessionHeaders[identity] ?? {}), ...identityHeaders(wire, identity) },
        signal: bounded(wire, signal, options.timeoutMs),
      });
      // Ended or not, the next request opens a session of its own rather than reuse this one.
      delete wire.sessionHeaders[identity];
      wire.initialized.delete(identity);
      return { outcome: reply.outcome, evidence: reply.evidence };
    },
    listen(o) {
      return channel.listen!({
        label: o.label,
        identity: o.identity,
        ...bearerOf(wire, o.identity),
        protocolVersion: wire.negotiated ?? LEGACY_VERSION,
        headers: {
          ...sessionHeaderFor(wire, 'GET', {
            identity: o.identity,
            label: o.label,
            ...(o.session === undefined ? {} : { session: o.session }),
          }),
          ...identityHeaders(wire, o.identity),
        },
        signal: bounded(wire, o.signal, options.timeoutMs * 4 + o.windowMs),
        windowMs: o.windowMs,
        maxBytes: Math.min(o.maxBytes, options.maxAnswerBytes),
        timeoutMs: options.timeoutMs,
        ...(o.during === undefined ? {} : { during: o.during }),
      });
    },
  };
}
