/**
 * The capture side of the byte relay: a copy of one TCP connection's two directions, parsed as
 * HTTP/1.1 with `http-parser-js` (Node's own parser is internal, `llhttp` on npm is its generator,
 * not a parser to call; this one exposes the callbacks of Node's parser and buffers no body),
 * each request paired with its answer and recorded through `http-record.ts`.
 *
 * What the framing covers: `Content-Length` and chunked bodies, a body that runs to the end of the
 * connection, keep-alive with several exchanges and pipelining (answers pair with requests in
 * order), `1xx` interim answers (not an answer of their own), `HEAD`, `204` and `304` with no
 * body, and server-sent event streams that stay open (each event is recorded as it arrives). After
 * a `101` (or a `2xx` to `CONNECT`) the connection carries another protocol: the relay passes it
 * through and the tap stops recording that connection. What the client sends after a request that
 * asks to switch (or `CONNECT`) is held, unparsed, until that request's answer comes: the answer
 * is recorded whatever those bytes are, and if the server declines (any other final answer) the
 * held bytes are parsed as HTTP again.
 *
 * The tap never holds the relay back and never grows without bound: a parse error, a head longer
 * than {@link MAX_HEAD}, {@link MAX_STALL} bytes without the parser getting anywhere (a chunk-size
 * line or trailers that never end), or more than {@link MAX_IN_FLIGHT} requests awaiting answers
 * stop the recording of that connection (the bytes still flow); so does holding more than
 * {@link MAX_STALL} bytes after an upgrade request. A request cut short is recorded bare, as the
 * terminating relay does.
 */
import { HTTPParser } from 'http-parser-js';
import type { CaptureWriter } from './capture.js';
import {
  recordAnswer,
  recordRequest,
  type BodySink,
  type HeaderValues,
  type RecordedRequest,
  type RequestHead,
  type SessionRun,
} from './http-record.js';
import type { PrincipalSources } from './principal.js';

/** Longest request or answer head parsed (Node's own default is 16 KiB). */
export const MAX_HEAD = 64 * 1024;
/** Bytes fed without the parser reaching a head, a body chunk or a message's end. */
export const MAX_STALL = 64 * 1024;
/** Requests awaiting their answers on one connection. */
export const MAX_IN_FLIGHT = 1024;

type Parser = InstanceType<typeof HTTPParser>;

/** Header lines as values by lower-case name; the first of repeated names counts. */
function headerValues(lines: readonly string[]): HeaderValues {
  const out: Record<string, string> = Object.create(null) as Record<string, string>;
  for (let i = 0; i + 1 < lines.length; i += 2) {
    const name = (lines[i] as string).toLowerCase();
    if (out[name] === undefined) out[name] = lines[i + 1] as string;
  }
  return out;
}

/** One request on the connection, and its answer once it comes. */
interface Exchange {
  readonly head: RequestHead;
  readonly recorded: RecordedRequest;
  readonly sink: BodySink;
  /** The request asks to switch protocols (`Upgrade`) or to tunnel (`CONNECT`). */
  readonly upgrade: boolean;
}

/** Where `http-parser-js` stands in the chunk it is executing (not in its typings). */
const parsedTo = (parser: Parser): number => (parser as unknown as { offset: number }).offset;

/** One direction: its parser, and bytes fed since the parser last got somewhere. */
interface Side {
  readonly parser: Parser;
  stall: number;
  moved: boolean;
}

function side(type: 'REQUEST' | 'RESPONSE'): Side {
  const parser = new HTTPParser(type);
  parser.maxHeaderSize = MAX_HEAD;
  return { parser, stall: 0, moved: false };
}

/** The recording of one relayed connection. */
export class ConnectionTap {
  readonly #capture: CaptureWriter;
  readonly #sources: PrincipalSources;
  readonly #sessions: SessionRun;
  #requests = side('REQUEST');
  readonly #answers = side('RESPONSE');
  /** Requests sent, oldest first, awaiting (the end of) their answers. */
  #waiting: Exchange[] = [];
  /** The request whose body is being read. */
  #reading: Exchange | undefined;
  /** The answer whose body is being read. */
  #answer: BodySink | undefined;
  #interim = false;
  #stopped = false;
  /**
   * Client bytes after an upgrade request, unparsed until its answer says whether the protocol
   * switched; `from` is where they start in the chunk being parsed when the request ended.
   */
  #held: { chunks: Buffer[]; bytes: number; from: number } | undefined;

  constructor(capture: CaptureWriter, sources: PrincipalSources, sessions: SessionRun) {
    this.#capture = capture;
    this.#sources = sources;
    this.#sessions = sessions;
    this.#wireRequests();
    this.#wireAnswers();
  }

  /** True once the tap stopped recording this connection. */
  get stopped(): boolean {
    return this.#stopped;
  }

  /** A chunk the client sent, after it was sent on. */
  fromClient(chunk: Buffer): void {
    if (this.#held === undefined) this.#feed(this.#requests, chunk);
    else this.#hold(chunk);
  }

  /** A chunk the upstream sent, after it was sent on. */
  fromServer(chunk: Buffer): void {
    this.#feed(this.#answers, chunk);
  }

  /** The upstream ended its side: an answer that runs to the end of the connection is complete. */
  serverEnded(): void {
    if (this.#stopped) return;
    const problem = this.#answers.parser.finish();
    if (problem instanceof Error) this.stop();
  }

  /** Stops recording: what is unfinished is recorded as far as it can be, nothing more is parsed. */
  stop(): void {
    if (this.#stopped) return;
    this.#stopped = true;
    this.#reading?.sink.abort();
    this.#answer?.abort();
    for (const exchange of this.#waiting) exchange.sink.abort();
    this.#reading = undefined;
    this.#answer = undefined;
    this.#waiting = [];
    this.#held = undefined;
  }

  /** Keeps client bytes that follow an upgrade request, within {@link MAX_STALL}. */
  #hold(chunk: Buffer): void {
    const held = this.#held;
    if (held === undefined || chunk.length === 0) return;
    held.chunks.push(chunk);
    held.bytes += chunk.length;
    if (held.bytes > MAX_STALL) this.stop();
  }

  /** The server declined the upgrade: the held bytes are HTTP again, read by a fresh parser. */
  #resume(): void {
    const held = this.#held;
    if (held === undefined) return;
    this.#held = undefined;
    this.#requests = side('REQUEST');
    this.#wireRequests();
    // Through `fromClient`: a held request may ask to switch again.
    for (const chunk of held.chunks) this.fromClient(chunk);
  }

  #feed(s: Side, chunk: Buffer): void {
    let offset = 0;
    while (!this.#stopped && offset < chunk.length) {
      s.moved = false;
      const used = s.parser.execute(chunk, offset, chunk.length - offset);
      // An upgrade request ended in this chunk: what follows it waits for the answer, unparsed
      // (the parser may have read on into it, or failed on it; neither counts).
      if (s === this.#requests && this.#held?.chunks.length === 0)
        return this.#hold(chunk.subarray(this.#held.from));
      if (used instanceof Error) return this.stop();
      s.stall = s.moved ? 0 : s.stall + used;
      if (s.stall > MAX_STALL) return this.stop();
      if (used === 0) return this.stop();
      offset += used;
    }
  }

  #wireRequests(): void {
    const { parser } = this.#requests;
    parser[HTTPParser.kOnHeadersComplete] = (info) => {
      this.#requests.moved = true;
      if (this.#stopped || this.#held !== undefined) return;
      if (this.#waiting.length >= MAX_IN_FLIGHT) return void this.stop();
      const head: RequestHead = {
        method: HTTPParser.methods[info.method] ?? 'UNKNOWN',
        path: info.url,
        headers: headerValues(info.headers),
      };
      const { sink, recorded } = recordRequest(head, this.#capture, this.#sources);
      this.#reading = { head, recorded, sink, upgrade: info.upgrade };
      this.#waiting.push(this.#reading);
    };
    parser[HTTPParser.kOnBody] = (chunk, offset, length) => {
      this.#requests.moved = true;
      if (this.#held === undefined)
        this.#reading?.sink.push(chunk.subarray(offset, offset + length));
    };
    parser[HTTPParser.kOnMessageComplete] = () => {
      this.#requests.moved = true;
      const done = this.#reading;
      if (this.#held !== undefined || done === undefined) return;
      done.sink.end();
      this.#reading = undefined;
      // Called as the parser passes the message's last byte: the rest is the client's next bytes.
      if (done.upgrade) this.#held = { chunks: [], bytes: 0, from: parsedTo(parser) };
    };
  }

  #wireAnswers(): void {
    const { parser } = this.#answers;
    parser[HTTPParser.kOnHeadersComplete] = (info) => {
      this.#answers.moved = true;
      if (this.#stopped) return;
      const exchange = this.#waiting[0];
      // An answer to no request: the two sides are out of step; recording them would mislead.
      if (exchange === undefined) return void this.stop();
      const status = info.statusCode;
      this.#interim = status >= 100 && status < 200 && status !== 101;
      if (this.#interim) return 0;
      const head = { status, headers: headerValues(info.headers) };
      this.#answer = recordAnswer(
        exchange.head,
        head,
        this.#capture,
        exchange.recorded,
        this.#sessions,
      );
      const tunnel = status === 101 || (exchange.head.method === 'CONNECT' && status < 300);
      if (tunnel) {
        // Another protocol follows: the exchange ends here, and so does the recording.
        this.#answer.end();
        this.#answer = undefined;
        this.#waiting.shift();
        this.stop();
        return 1;
      }
      // Any other final answer declines the switch: what the client sent since is HTTP.
      if (exchange.upgrade) this.#resume();
      // An answer to HEAD has a head only, whatever its length says.
      return exchange.head.method === 'HEAD' ? 1 : 0;
    };
    parser[HTTPParser.kOnBody] = (chunk, offset, length) => {
      this.#answers.moved = true;
      this.#answer?.push(chunk.subarray(offset, offset + length));
    };
    parser[HTTPParser.kOnMessageComplete] = () => {
      this.#answers.moved = true;
      if (this.#interim) {
        this.#interim = false;
        return;
      }
      this.#answer?.end();
      this.#answer = undefined;
      this.#waiting.shift();
    };
  }
}
