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
 * through and the tap stops recording that connection.
 *
 * The tap never holds the relay back and never grows without bound: a parse error, a head longer
 * than {@link MAX_HEAD}, {@link MAX_STALL} bytes without the parser getting anywhere (a chunk-size
 * line or trailers that never end), or more than {@link MAX_IN_FLIGHT} requests awaiting answers
 * stop the recording of that connection (the bytes still flow); a request cut short is recorded
 * bare, as the terminating relay does.
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
}

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
  readonly #requests = side('REQUEST');
  readonly #answers = side('RESPONSE');
  /** Requests sent, oldest first, awaiting (the end of) their answers. */
  #waiting: Exchange[] = [];
  /** The request whose body is being read. */
  #reading: Exchange | undefined;
  /** The answer whose body is being read. */
  #answer: BodySink | undefined;
  #interim = false;
  #stopped = false;

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
    this.#feed(this.#requests, chunk);
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
  }

  #feed(s: Side, chunk: Buffer): void {
    let offset = 0;
    while (!this.#stopped && offset < chunk.length) {
      s.moved = false;
      const used = s.parser.execute(chunk, offset, chunk.length - offset);
      if (used instanceof Error) return this.stop();
      s.stall = s.moved ? 0 : s.stall + used;
      if (s.stall > MAX_STALL) return this.stop();
      // The parser stops short after a head announcing an upgrade: go on with the rest.
      if (used === 0) return this.stop();
      offset += used;
    }
  }

  #wireRequests(): void {
    const { parser } = this.#requests;
    parser[HTTPParser.kOnHeadersComplete] = (info) => {
      this.#requests.moved = true;
      if (this.#stopped) return;
      if (this.#waiting.length >= MAX_IN_FLIGHT) return void this.stop();
      const head: RequestHead = {
        method: HTTPParser.methods[info.method] ?? 'UNKNOWN',
        path: info.url,
        headers: headerValues(info.headers),
      };
      const { sink, recorded } = recordRequest(head, this.#capture, this.#sources);
      this.#reading = { head, recorded, sink };
      this.#waiting.push(this.#reading);
    };
    parser[HTTPParser.kOnBody] = (chunk, offset, length) => {
      this.#requests.moved = true;
      this.#reading?.sink.push(chunk.subarray(offset, offset + length));
    };
    parser[HTTPParser.kOnMessageComplete] = () => {
      this.#requests.moved = true;
      this.#reading?.sink.end();
      this.#reading = undefined;
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
