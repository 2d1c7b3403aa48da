/**
 * A real HTTP front on 127.0.0.1:0 that relays every request to an upstream MCP server (a fixture
 * twin) and misbehaves on the way back. Relaying a known server, rather than faking one, lets a test
 * say what the verdicts would be without the misbehaviour, so the misbehaviour alone is on trial.
 *
 * Faults on the chosen `tools/call` answers: `hang` (never answers), `garbage` (a JSON content type
 * over bytes that are not JSON), `html-500` (an HTML error page), `huge` (an answer to the right id
 * that streams on past any sane cap), `crash` (half the upstream answer, then the socket is
 * destroyed). Faults on every answer: `progress-first` (SSE, a progress notification before the
 * upstream answer) and `flood` (SSE, hundreds of notifications, server→client requests, one reusing
 * the client's id, and an answer to another id, all before the upstream answer).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createParser } from 'eventsource-parser';

/** Every fault the proxy can play. */
export const FAULTS = [
  'none',
  'hang',
  'garbage',
  'html-500',
  'huge',
  'crash',
  'progress-first',
  'flood',
] as const;
/** One of {@link FAULTS}. */
export type Fault = (typeof FAULTS)[number];

/** Options of {@link startHostileProxy}. */
export interface HostileOptions {
  readonly fault: Fault;
  /** Fault every n-th `tools/call` (1, the default: every one). Ignored by the SSE faults. */
  readonly every?: number;
  /**
   * Client capabilities every `tools/call` must declare in its `_meta` envelope: one that does not
   * is answered `-32021` (HTTP 400) naming what it lacks, and never relayed (issue 34).
   */
  readonly requires?: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
}

/** A running proxy. */
export interface HostileProxy {
  readonly url: string;
  /** How many answers the proxy mangled. */
  readonly faulted: () => number;
  close(): Promise<void>;
}

// Origin too: a proxy that dropped it would switch off the server's DNS-rebinding check.
const RELAYED = ['content-type', 'accept', 'authorization', 'origin'];
const HUGE_BYTES = 3 * 1024 * 1024;

interface Upstream {
  readonly status: number;
  readonly contentType: string;
  readonly text: string;
  /** The JSON-RPC messages of the body (SSE events, or the one JSON body). */
  readonly messages: unknown[];
}

async function relay(upstream: string, req: IncomingMessage, body: string): Promise<Upstream> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === 'string' && (RELAYED.includes(name) || name.startsWith('mcp-')))
      headers[name] = value;
  }
  const response = await fetch(upstream, { method: 'POST', headers, body });
  const text = await response.text();
  const contentType = response.headers.get('content-type') ?? 'application/json';
  const messages: unknown[] = [];
  if (contentType.startsWith('text/event-stream')) {
    const parser = createParser({ onEvent: (e) => messages.push(JSON.parse(e.data)) });
    parser.feed(text);
  } else if (text.length > 0) {
    try {
      messages.push(JSON.parse(text));
    } catch {
      // Not JSON: relayed as it came.
    }
  }
  return { status: response.status, contentType, text, messages };
}

function sse(res: ServerResponse, status: number, events: readonly unknown[]): void {
  res.writeHead(status, { 'content-type': 'text/event-stream', 'x-accel-buffering': 'no' });
  for (const event of events) res.write(`event: message\ndata: ${JSON.stringify(event)}\n\n`);
  res.end();
}

function noise(id: unknown): unknown[] {
  const progress = (n: number) => ({
    jsonrpc: '2.0',
    method: 'notifications/progress',
    params: { progressToken: 'p', progress: n, message: `step ${n}` },
  });
  return [
    ...Array.from({ length: 300 }, (_, i) => progress(i)),
    // A server→client request that reuses the client's id: a request, never the answer.
    { jsonrpc: '2.0', id, method: 'roots/list', params: {} },
    { jsonrpc: '2.0', id: 'srv-1', method: 'elicitation/create', params: { message: 'Sure?' } },
    { jsonrpc: '2.0', id: 987_654, result: { resultType: 'complete', content: [] } },
    ...Array.from({ length: 200 }, (_, i) => progress(300 + i)),
  ];
}

function mangle(res: ServerResponse, fault: Fault, id: unknown, up: Upstream): void {
  if (fault === 'hang') return;
  if (fault === 'garbage') {
    res.writeHead(200, { 'content-type': 'application/json' });
    return void res.end('{"jsonrpc":"2.0","id":' + String(id) + ',"result":{ \u0000garbage<<<');
  }
  if (fault === 'html-500') {
    res.writeHead(500, { 'content-type': 'text/html' });
    return void res.end('<html><body><h1>500 Internal Server Error</h1></body></html>');
  }
  if (fault === 'crash') {
    res.writeHead(200, {
      'content-type': up.contentType,
      'content-length': String(up.text.length),
    });
    res.write(up.text.slice(0, Math.floor(up.text.length / 2)));
    setTimeout(() => res.socket?.destroy(), 10);
    return;
  }
  // huge: an answer to the right id whose one string never ends before the cap.
  res.writeHead(200, { 'content-type': 'application/json' });
  res.on('error', () => undefined);
  res.write(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"pad":"`);
  const chunk = 'x'.repeat(64 * 1024);
  let left = HUGE_BYTES;
  const pump = (): void => {
    while (left > 0) {
      left -= chunk.length;
      if (!res.write(chunk)) return void res.once('drain', pump);
    }
    res.end('"}}');
  };
  pump();
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** What `message` does not declare of `options.requires`, or undefined when it declares it all. */
function lacking(
  message: { params?: unknown },
  options: HostileOptions,
): Record<string, unknown> | undefined {
  const meta = isRecord(message.params) ? message.params['_meta'] : undefined;
  const declared = isRecord(meta) ? meta['io.modelcontextprotocol/clientCapabilities'] : undefined;
  const missing: Record<string, unknown> = {};
  for (const [capability, parts] of Object.entries(options.requires ?? {})) {
    const mine = isRecord(declared) ? declared[capability] : undefined;
    const absent = Object.keys(parts).filter((p) => !isRecord(mine) || !(p in mine));
    if (absent.length > 0) missing[capability] = Object.fromEntries(absent.map((p) => [p, {}]));
  }
  return Object.keys(missing).length > 0 ? missing : undefined;
}

/** Starts a proxy in front of `upstream` (an MCP endpoint URL) playing `options.fault`. */
export async function startHostileProxy(
  upstream: string,
  options: HostileOptions,
): Promise<HostileProxy> {
  const every = options.every ?? 1;
  let calls = 0;
  let faulted = 0;
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      void (async () => {
        const message = JSON.parse(body) as { id?: unknown; method?: string; params?: unknown };
        const missing = message.method === 'tools/call' ? lacking(message, options) : undefined;
        if (missing !== undefined) {
          res.writeHead(400, { 'content-type': 'application/json' });
          res.end(
            JSON.stringify({
              jsonrpc: '2.0',
              id: message.id,
              error: {
                code: -32021,
                message: 'Missing required client capability',
                data: { requiredCapabilities: missing },
              },
            }),
          );
          return;
        }
        const up = await relay(upstream, req, body);
        const plain = (): void => {
          res.writeHead(up.status, { 'content-type': up.contentType });
          res.end(up.text);
        };
        if (message.id === undefined) return plain();
        if (options.fault === 'progress-first' || options.fault === 'flood') {
          faulted++;
          const before =
            options.fault === 'flood'
              ? noise(message.id)
              : [
                  {
                    jsonrpc: '2.0',
                    method: 'notifications/progress',
                    params: { progressToken: 'p', progress: 0 },
                  },
                ];
          return sse(res, up.status, [...before, ...up.messages]);
        }
        const chosen = message.method === 'tools/call' && ++calls % every === 0;
        if (!chosen || options.fault === 'none') return plain();
        faulted++;
        mangle(res, options.fault, message.id, up);
      })().catch(() => res.socket?.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    faulted: () => faulted,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
