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
import { connect, createServer, type Socket } from 'node:net';
import type { HttpProxy, HttpProxyOptions } from './http-proxy.js';
import { SessionRun } from './http-record.js';
import { ConnectionTap } from './http-tap.js';
import { listenOn } from './node-http-relay.js';

/** Longest a copy waits before the tap reads it. */
export const TAP_DELAY_MS = 1;
/** Bytes of copies that wait before the tap reads them at once. */
export const TAP_BATCH_BYTES = 256 * 1024;

/**
 * The tap's work, done in batches: each copy waits until {@link TAP_DELAY_MS} after the first of
 * a batch, or until {@link TAP_BATCH_BYTES} wait, then all are read in arrival order. So the relay
 * hands a chunk on and returns to its sockets at once; the parsing and recording of an answer
 * happen after the client had its bytes and the CPU to read them, not in its way. What waits is
 * bounded by the byte count.
 */
class TapQueue {
  #work: (() => void)[] = [];
  #bytes = 0;
  #timer: NodeJS.Timeout | undefined;

  add(bytes: number, work: () => void): void {
    this.#work.push(work);
    this.#bytes += bytes;
    if (this.#bytes >= TAP_BATCH_BYTES) this.flush();
    else this.#timer ??= setTimeout(() => this.flush(), TAP_DELAY_MS);
  }

  /** Does all waiting work now. */
  flush(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    const work = this.#work;
    this.#work = [];
    this.#bytes = 0;
    for (const w of work) w();
  }
}

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
  queue: TapQueue,
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
    const fromClient = (chunk: Buffer): void =>
      queue.add(chunk.length, () => tap.fromClient(chunk));
    const fromServer = (chunk: Buffer): void =>
      queue.add(chunk.length, () => tap.fromServer(chunk));
    client.on('data', fromClient);
    upstream.on('data', fromServer);
    upstream.once('end', () => queue.add(0, () => tap.serverEnded()));
    // Once the tap gave up on a connection, it costs the relay nothing more.
    const stopped = (): void => {
      if (!tap.stopped) return;
      client.off('data', fromClient);
      upstream.off('data', fromServer);
    };
    client.on('data', stopped);
    upstream.on('data', stopped);
    client.once('close', () => queue.add(0, () => tap.stop()));
    upstream.once('close', () => queue.add(0, () => tap.stop()));
  }
  client.once('close', () => open.delete(client));
  upstream.once('close', () => open.delete(upstream));
}

/** Starts the byte relay; resolves once it listens. */
export async function startTcpRelay(options: HttpProxyOptions): Promise<HttpProxy> {
  const sessions = new SessionRun();
  const open = new Set<Socket>();
  const queue = new TapQueue();
  const server = createServer({ noDelay: true, allowHalfOpen: true }, (client) =>
    relayConnection(client, options, sessions, open, queue),
  );
  return {
    url: await listenOn(server, options.host, options.port),
    server,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of open) socket.destroy();
        server.close(() =>
          // The sockets' last events are in: the tap reads what waits.
          setImmediate(() => {
            queue.flush();
            resolve();
          }),
        );
      }),
  };
}
