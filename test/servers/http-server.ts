/**
 * A small real HTTP MCP server on 127.0.0.1:0 whose answers a test scripts per message: JSON on any
 * status, SSE events, raw bodies, a dropped connection, a hang, or a huge body.
 */
import { createServer } from 'node:http';
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { answer } from './mcp-core.js';
import type { CallCounts, Era, Incoming } from './mcp-core.js';

/** What the server does with one message. */
export type HttpAction =
  | { readonly json: unknown; readonly status?: number }
  | { readonly sse: readonly unknown[]; readonly status?: number }
  | { readonly raw: string; readonly status: number; readonly contentType?: string }
  | { readonly hugeBytes: number }
  | 'drop'
  | 'drop-mid'
  | 'hang';

/** What a scenario sees of a request. */
export interface Seen {
  readonly message: Incoming;
  readonly headers: IncomingHttpHeaders;
  /** The core's answer, for scenarios that wrap it. */
  readonly answer: Record<string, unknown> | undefined;
}

/** Picks the action for a message; `undefined` sends the core's answer as JSON. */
export type Scenario = (seen: Seen) => HttpAction | undefined;

/** A running test server. */
export interface TestHttpServer {
  readonly url: string;
  readonly calls: CallCounts;
  readonly seen: Seen[];
  close(): Promise<void>;
}

function send(res: ServerResponse, action: HttpAction): void {
  if (action === 'hang') return;
  if (action === 'drop') {
    res.socket?.destroy();
    return;
  }
  if (action === 'drop-mid') {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
    res.write('{"jsonrpc":"2.0","id":1,"res');
    setTimeout(() => res.socket?.destroy(), 20);
    return;
  }
  if ('hugeBytes' in action) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"jsonrpc":"2.0","id":1,"result":{"pad":"');
    const chunk = 'x'.repeat(64 * 1024);
    let left = action.hugeBytes;
    const pump = (): void => {
      while (left > 0) {
        left -= chunk.length;
        if (!res.write(chunk)) {
          res.once('drain', pump);
          return;
        }
      }
      res.end('"}}');
    };
    res.on('error', () => undefined);
    pump();
    return;
  }
  if ('sse' in action) {
    res.writeHead(action.status ?? 200, {
      'content-type': 'text/event-stream',
      'x-accel-buffering': 'no',
    });
    for (const event of action.sse) {
      const text = `event: message\ndata: ${JSON.stringify(event)}\n\n`;
      // Split every event across two writes: the parser must reassemble, not read line one.
      const half = Math.floor(text.length / 2);
      res.write(text.slice(0, half));
      res.write(text.slice(half));
    }
    res.end();
    return;
  }
  if ('raw' in action) {
    res.writeHead(action.status, action.contentType ? { 'content-type': action.contentType } : {});
    res.end(action.raw);
    return;
  }
  res.writeHead(action.status ?? 200, { 'content-type': 'application/json' });
  res.end(JSON.stringify(action.json));
}

/** Legacy over HTTP answers a modern request as the v1 SDK does: 400 with a non-modern error. */
function legacyGate(message: Incoming, headers: IncomingHttpHeaders): HttpAction | undefined {
  if (message.method === 'initialize' || headers['mcp-protocol-version'] !== '2026-07-28')
    return undefined;
  return {
    status: 400,
    json: {
      jsonrpc: '2.0',
      id: null,
      error: { code: -32000, message: 'Bad Request: Unsupported protocol version: 2026-07-28' },
    },
  };
}

/** Starts a server playing `era`, with `scenario` overriding answers message by message. */
export async function startHttpServer(
  era: Era,
  scenario: Scenario = () => undefined,
): Promise<TestHttpServer> {
  const calls: CallCounts = {};
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    // The transport's MUST, kept by every test server: what these servers stand for is their
    // answers, and a missing Origin check would be a finding (transport/origin) of its own.
    const origin = req.headers.origin;
    if (origin !== undefined && !/^https?:\/\/(localhost|127\.0\.0\.1)(:\d+)?$/.test(origin)) {
      send(res, { status: 403, raw: 'forbidden origin', contentType: 'text/plain' });
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let message: Incoming;
      try {
        message = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Incoming;
      } catch {
        send(res, { status: 400, raw: 'bad json', contentType: 'text/plain' });
        return;
      }
      const caller = req.headers.authorization;
      const core = answer(message, era, caller, calls);
      const view: Seen = { message, headers: req.headers, answer: core };
      seen.push(view);
      const action =
        scenario(view) ??
        (era === 'legacy' ? legacyGate(message, req.headers) : undefined) ??
        (core ? { json: core } : { raw: '', status: 202 });
      if (message.method === 'initialize' && era === 'legacy')
        res.setHeader('mcp-session-id', 'legacy-session-1');
      send(res, action);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    calls,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
