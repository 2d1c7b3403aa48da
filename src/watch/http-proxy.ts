/**
 * The reverse proxy of `stateguard watch --http <upstream> --listen <host:port>`: every request
 * (POST, GET streams, DELETE, anything) reaches the upstream origin with the client's method, path,
 * query, headers and body, and the answer comes back, streamed; a copy of each side is recorded in
 * the capture. Two relays do it:
 *
 * - an `http:` upstream: the byte relay (`tcp-relay.ts`), which pipes each connection's bytes both
 *   ways unchanged and parses a copy of them for the capture (`http-tap.ts`);
 * - an `https:` upstream: the terminating relay (`node-http-relay.ts`), Node's HTTP server and
 *   client, which must speak TLS to the upstream and names it in `Host`.
 */
import type { Server } from 'node:net';
import type { CaptureWriter } from './capture.js';
import { startNodeHttpRelay } from './node-http-relay.js';
import type { PrincipalSources } from './principal.js';
import { startTcpRelay } from './tcp-relay.js';

/** Options of the reverse proxy. */
export interface HttpProxyOptions {
  /** The upstream server's URL; requests go to its origin with the client's path. */
  readonly upstream: URL;
  readonly host: string;
  readonly port: number;
  readonly capture?: CaptureWriter;
  readonly principal: PrincipalSources;
  /**
   * Which relay carries the traffic: `bytes` (only for an `http:` upstream) or `terminating`.
   * Default: `bytes` for `http:`, `terminating` for `https:`. The bench sets it to compare them.
   */
  readonly relay?: 'bytes' | 'terminating';
}

/** A listening proxy. */
export interface HttpProxy {
  /** `http://host:port` the client talks to. */
  readonly url: string;
  readonly server: Server;
  close(): Promise<void>;
}

/** Starts the proxy; resolves once it listens. */
export function startHttpProxy(options: HttpProxyOptions): Promise<HttpProxy> {
  const https = options.upstream.protocol === 'https:';
  const relay = options.relay ?? (https ? 'terminating' : 'bytes');
  if (relay === 'bytes' && https)
    throw new TypeError('the byte relay cannot reach an https: upstream');
  return relay === 'bytes' ? startTcpRelay(options) : startNodeHttpRelay(options);
}
