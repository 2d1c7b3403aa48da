/**
 * The byte relay of `stateguard watch --http <http://upstream> --listen <host:port>`: each
 * connection the client opens gets its own connection to the upstream, and the bytes of both
 * directions are piped across unchanged: heads, bodies, chunk framing, `Host`, hop-by-hop headers,
 * everything. `pipe` writes each chunk on before anyone else sees it and pauses a reader whose
 * writer is full, so a slow side slows the other as it would without the proxy; a half-close is
 * passed on as one. A copy of each chunk then goes to the connection's {@link ConnectionTap},
 * which parses it as HTTP and records the exchanges.
 *
 * So the upstream sees the request as the client wrote it, `Host` included (the proxy's address,
 * not the upstream's). When the upstream cannot be reached before it sent anything, the client
 * gets a `502` and the connection closes.
 */
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import type { HttpProxy, HttpProxyOptions } from './http-proxy.js';
import { SessionRun } from './http-record.js';
import { ConnectionTap } from './http-tap.js';
import { listenUrl } from './node-http-relay.js';

const BAD_GATEWAY = 'HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\nconnection: close\r\n\r\n';

/** The upstream's host and port, as `net.connect` takes them. */
function endpoint(upstream: URL): { host: string; port: number } {
  const host = upstream.hostname.replace(/^\[(.*)\]$/, '$1');
  return { host, port: upstream.port === '' ? 80 : Number(upstream.port) };
}

/** Relays one client connection to a new upstream connection, and taps both directions. */
function relayConnection(
  client: Socket,
  options: HttpProxyOptions,
  sessions: SessionRun,
  open: Set<Socket>,
): void {
  const upstream = connect({ ...endpoint(options.upstream), noDelay: true, allowHalfOpen: true });
  open.add(client).add(upstream);
  let answered = false;
  client.pipe(upstream);
  upstream.pipe(client);
  upstream.once('data', () => (answered = true));
  upstream.on('error', () => {
    if (!answered && client.writable) client.end(BAD_GATEWAY);
    else client.destroy();
  });
  client.on('error', () => upstream.destroy());
  const { capture } = options;
  if (capture !== undefined) {
    // The copy, off the relay: `pipe`'s listener wrote each chunk on before these run.
    const tap = new ConnectionTap(capture, options.principal, sessions);
    const fromClient = (chunk: Buffer): void => tap.fromClient(chunk);
    const fromServer = (chunk: Buffer): void => tap.fromServer(chunk);
    client.on('data', fromClient);
    upstream.on('data', fromServer);
    upstream.once('end', () => tap.serverEnded());
    // Once the tap gave up on a connection, it costs the relay nothing more.
    const stopped = (): void => {
      if (!tap.stopped) return;
      client.off('data', fromClient);
      upstream.off('data', fromServer);
    };
    client.on('data', stopped);
    upstream.on('data', stopped);
    client.once('close', () => tap.stop());
    upstream.once('close', () => tap.stop());
  }
  client.once('close', () => open.delete(client));
  upstream.once('close', () => open.delete(upstream));
}

/** Starts the byte relay; resolves once it listens. */
export async function startTcpRelay(options: HttpProxyOptions): Promise<HttpProxy> {
  const sessions = new SessionRun();
  const open = new Set<Socket>();
  const server = createServer({ noDelay: true, allowHalfOpen: true }, (client) =>
    relayConnection(client, options, sessions, open),
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: listenUrl(options.host, port),
    server,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of open) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
