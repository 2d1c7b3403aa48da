/**
 * The reverse proxy of `stateguard watch --http <upstream> --listen <host:port>`: every request
 * (POST, GET streams, DELETE, anything) goes to the upstream origin with the same method, path,
 * query, headers (but hop-by-hop ones, and `Host`) and body; the answer comes back with its status,
 * headers and body, streamed, byte for byte. A copy of each side is recorded: a JSON-RPC body as
 * one line, a server-sent event stream (a POST's answer or a GET stream) as one line per event,
 * parsed with `eventsource-parser` as the scanner's transport parses it.
 *
 * Memory is bounded per exchange: a body copy stops at {@link MAX_RECORDED_MESSAGE} (the message is
 * then recorded by size only) and the event parser's buffer at the same size.
 */
import {
  Agent as HttpAgent,
  createServer,
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import { createParser } from 'eventsource-parser';
import { alphabetSize, predictNext } from '../probe/experiments/task-ids.js';
import {
  MAX_RECORDED_MESSAGE,
  type CaptureLine,
  type CaptureWriter,
  type MessageContext,
} from './capture.js';
import { principalDigest, type PrincipalSources } from './principal.js';

/** Headers that belong to one connection, never forwarded (RFC 9110 §7.6.1). */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/** Options of the reverse proxy. */
export interface HttpProxyOptions {
  /** The upstream server's URL; requests go to its origin with the client's path. */
  readonly upstream: URL;
  readonly host: string;
  readonly port: number;
  readonly capture?: CaptureWriter;
  readonly principal: PrincipalSources;
}

/** A listening proxy. */
export interface HttpProxy {
  /** `http://host:port` the client talks to. */
  readonly url: string;
  readonly server: Server;
  close(): Promise<void>;
}

function forwardHeaders(
  headers: IncomingHttpHeaders,
  drop: ReadonlySet<string>,
): IncomingHttpHeaders {
  const named = new Set(
    String(headers['connection'] ?? '')
      .split(',')
      .map((h) => h.trim().toLowerCase()),
  );
  const out: IncomingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers))
    if (value !== undefined && !HOP_BY_HOP.has(name) && !named.has(name) && !drop.has(name))
      out[name] = value;
  return out;
}

/** A bounded copy of a body: the bytes, or how many there were past the cap. */
class BodyCopy {
  #parts: Buffer[] = [];
  #bytes = 0;
  push(chunk: Buffer): void {
    this.#bytes += chunk.length;
    if (this.#bytes <= MAX_RECORDED_MESSAGE) this.#parts.push(Buffer.from(chunk));
    else this.#parts = [];
  }
  get bytes(): number {
    return this.#bytes;
  }
  text(): string | undefined {
    return this.#bytes <= MAX_RECORDED_MESSAGE
      ? Buffer.concat(this.#parts).toString('utf8')
      : undefined;
  }
}

const parse = (text: string): { value: unknown } | undefined => {
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return undefined;
  }
};

/** Bits an id can hold: its length times its alphabet's. */
const bitsOf = (id: string): number => Math.floor(id.length * Math.log2(alphabetSize(new Set(id))));

/** Longest session id the proxy keeps to compare with the next. */
const MAX_SESSION_ID = 1024;

/**
 * The last two distinct `Mcp-Session-Id` values handed out (in memory only), to tell whether a
 * new one counts on from them.
 */
class SessionRun {
  #recent: string[] = [];
  /** Notes `id`; true when it is new and continues a run of three that count. */
  counts(id: string): boolean {
    if (id.length > MAX_SESSION_ID || this.#recent.includes(id)) return false;
    const run = [...this.#recent, id];
    this.#recent = run.slice(-2);
    return run.length === 3 && predictNext(run) !== undefined;
  }
}

/** What the request side of one exchange recorded: its line (once written) and its principal. */
interface RecordedRequest {
  readonly line: Promise<number>;
  principal?: string;
}

/** Records a copy of the request's body as one capture line, off the relay. */
function recordRequest(
  req: IncomingMessage,
  path: string,
  capture: CaptureWriter,
  sources: PrincipalSources,
): RecordedRequest {
  const copy = new BodyCopy();
  const recorded: { line: Promise<number>; principal?: string } = { line: Promise.resolve(0) };
  recorded.line = new Promise<number>((resolve) => {
    req.on('data', (chunk: Buffer) => copy.push(chunk));
    req.on('end', () => {
      const text = copy.text();
      const parsed = text === undefined || text === '' ? undefined : parse(text);
      const principal = principalDigest(capture.digester, sources, req.headers, parsed?.value);
      if (principal !== undefined) recorded.principal = principal;
      const token = /^\s*Bearer\s+(\S+)/i.exec(String(req.headers['authorization'] ?? ''))?.[1];
      if (token !== undefined && principal !== undefined) capture.addSecret(token, principal);
      const http = { method: req.method ?? 'GET', path: path.slice(0, 1024) };
      const context = {
        dir: 'c2s' as const,
        http,
        ...(principal === undefined ? {} : { principal }),
      };
      if (text === undefined) resolve(capture.recordOversize(copy.bytes, context));
      else if (text === '') resolve(capture.recordBare(context));
      else resolve(capture.record(text, context, parsed));
    });
    req.on('error', () => resolve(capture.recordBare({ dir: 'c2s' })));
  });
  return recorded;
}

/** The HTTP part of an answer's capture lines: request, status, and a session id's digest. */
function answerHttp(
  req: IncomingMessage,
  path: string,
  answer: IncomingMessage,
  capture: CaptureWriter,
  sessions: SessionRun,
): CaptureLine['http'] {
  const sessionId = answer.headers['mcp-session-id'];
  const counts = typeof sessionId === 'string' && sessions.counts(sessionId);
  return {
    method: req.method ?? 'GET',
    path: path.slice(0, 1024),
    status: answer.statusCode ?? 0,
    ...(typeof sessionId === 'string' && sessionId !== ''
      ? {
          session: capture.digester.digest('session', sessionId),
          sessionBits: bitsOf(sessionId),
          ...(counts ? { sessionCounts: true as const } : {}),
        }
      : {}),
  };
}

/** Records each event of a server-sent event stream as one line. */
function observeEvents(
  answer: IncomingMessage,
  capture: CaptureWriter,
  later: (write: (context: MessageContext) => void) => void,
): void {
  const decoder = new TextDecoder();
  let stopped = false;
  const parser = createParser({
    maxBufferSize: MAX_RECORDED_MESSAGE,
    onEvent: (event) => {
      const parsed = parse(event.data);
      if (parsed !== undefined) later((context) => capture.record(event.data, context, parsed));
    },
    onError: (error) => {
      if (error.type !== 'max-buffer-size-exceeded') return;
      stopped = true;
      later((context) => capture.recordOversize(MAX_RECORDED_MESSAGE, context));
    },
  });
  answer.on('data', (chunk: Buffer) => {
    if (!stopped) parser.feed(decoder.decode(chunk, { stream: true }));
  });
}

/** Records an answer's messages once the request's line is written, in arrival order. */
function observeAnswer(
  answer: IncomingMessage,
  req: IncomingMessage,
  path: string,
  capture: CaptureWriter,
  recorded: RecordedRequest,
  sessions: SessionRun,
): void {
  const http = answerHttp(req, path, answer, capture, sessions);
  const later = (write: (context: MessageContext) => void): void => {
    void recorded.line.then((re) => {
      const { principal } = recorded;
      write({ dir: 's2c', re, http, ...(principal === undefined ? {} : { principal }) });
    });
  };
  const type = String(answer.headers['content-type'] ?? '').toLowerCase();
  if (type.startsWith('text/event-stream')) {
    observeEvents(answer, capture, later);
    return;
  }
  const body = new BodyCopy();
  answer.on('data', (chunk: Buffer) => body.push(chunk));
  answer.on('end', () => {
    const text = body.text();
    later((context) => {
      if (text === undefined) capture.recordOversize(body.bytes, context);
      else if (text.trim() === '') capture.recordBare(context);
      else capture.record(text, context, parse(text));
    });
  });
}

/** The request handler: relays one exchange, and records a copy of it after each chunk is sent on. */
function relay(
  options: HttpProxyOptions,
  agent: HttpAgent,
): (req: IncomingMessage, res: ServerResponse) => void {
  const { upstream, capture } = options;
  const send = upstream.protocol === 'https:' ? httpsRequest : httpRequest;
  const sessions = new SessionRun();
  return (req, res) => {
    const path = req.url ?? '/';
    const headers = forwardHeaders(req.headers, new Set(['host']));
    let recorded: RecordedRequest | undefined;
    const out = send(
      {
        protocol: upstream.protocol,
        hostname: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path,
        agent,
        headers: { ...headers, host: upstream.host },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, forwardHeaders(answer.headers, new Set()));
        answer.pipe(res);
        if (capture !== undefined && recorded !== undefined)
          observeAnswer(answer, req, path, capture, recorded, sessions);
      },
    );
    out.on('error', () => {
      if (!res.headersSent) res.writeHead(502).end();
      else res.destroy();
    });
    req.pipe(out);
    res.on('close', () => {
      // The client went away (a cancelled stream): so does the upstream request.
      if (!res.writableFinished) out.destroy();
    });
    // The copy, off the relay: `pipe` wrote each chunk on before these listeners run.
    if (capture !== undefined) recorded = recordRequest(req, path, capture, options.principal);
  };
}

/** Starts the proxy; resolves once it listens. */
export async function startHttpProxy(options: HttpProxyOptions): Promise<HttpProxy> {
  // Connections to the upstream are kept and reused: a new TCP connection per request would add
  // a handshake to every round trip.
  const agent = new (options.upstream.protocol === 'https:' ? HttpsAgent : HttpAgent)({
    keepAlive: true,
    noDelay: true,
  });
  const server = createServer({ noDelay: true }, relay(options, agent));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    url: `http://${host}:${port}`,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        agent.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
