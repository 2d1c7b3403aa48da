/**
 * A real HTTP server on 127.0.0.1, port 0, around any Node request listener.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A running loopback server. */
export interface RunningHttp {
  /** `http://127.0.0.1:<port>` (no trailing slash). */
  readonly url: string;
  close(): Promise<void>;
}

/** Listen on 127.0.0.1:0 with `handler`; resolves once listening. */
export async function startHttp(
  handler: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<RunningHttp> {
  const server = createServer(handler);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
