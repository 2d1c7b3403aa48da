/**
 * Recording one HTTP exchange into the capture, whichever relay carried it: the request's body as
 * one line, the answer's as one line, or a server-sent event stream (a POST's answer or a GET
 * stream) as one line per event, parsed with `eventsource-parser` as the scanner's transport
 * parses it. A relay hands each body over as a {@link BodySink}: chunks as they pass, then the end.
 *
 * Memory is bounded per exchange: a body copy stops at {@link MAX_RECORDED_MESSAGE} (the message is
 * then recorded by size only) and the event parser's buffer at the same size.
 */
import { createParser } from 'eventsource-parser';
import { alphabetSize, predictNext } from '../probe/experiments/task-ids.js';
import {
  MAX_RECORDED_MESSAGE,
  type CaptureLine,
  type CaptureWriter,
  type MessageContext,
} from './capture.js';
import { principalDigest, type PrincipalSources } from './principal.js';

/** Header values by lower-case name, as `node:http` gives them. */
export type HeaderValues = Readonly<Record<string, string | string[] | undefined>>;

/** The head of a request, as either relay read it. */
export interface RequestHead {
  readonly method: string;
  /** The request target as sent (path and query). */
  readonly path: string;
  readonly headers: HeaderValues;
}

/** The head of an answer. */
export interface AnswerHead {
  readonly status: number;
  readonly headers: HeaderValues;
}

/** Where a relay hands one body's bytes: each chunk once, after it was sent on. */
export interface BodySink {
  push(chunk: Buffer): void;
  /** The body is complete. */
  end(): void;
  /** The body will never complete (the connection broke, or recording stopped). */
  abort(): void;
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

/** Longest request path recorded. */
const MAX_PATH = 1024;

/**
 * The last two distinct `Mcp-Session-Id` values handed out (in memory only), to tell whether a
 * new one counts on from them. One per proxy, shared by all its connections.
 */
export class SessionRun {
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
export interface RecordedRequest {
  readonly line: Promise<number>;
  /** The line, as soon as it is written (so an answer read right after is written in order). */
  readonly written?: number;
  readonly principal?: string;
}

/** Records a copy of a request's body as one capture line, once the body is complete. */
export function recordRequest(
  head: RequestHead,
  capture: CaptureWriter,
  sources: PrincipalSources,
): { sink: BodySink; recorded: RecordedRequest } {
  const copy = new BodyCopy();
  let resolve: (line: number) => void = () => undefined;
  const recorded: { line: Promise<number>; written?: number; principal?: string } = {
    line: new Promise<number>((r) => (resolve = r)),
  };
  const settle = (line: number): void => {
    recorded.written = line;
    resolve(line);
  };
  let done = false;
  const end = (): void => {
    if (done) return;
    done = true;
    const text = copy.text();
    const parsed = text === undefined || text === '' ? undefined : parse(text);
    const principal = principalDigest(capture.digester, sources, head.headers, parsed?.value);
    if (principal !== undefined) recorded.principal = principal;
    const token = /^\s*Bearer\s+(\S+)/i.exec(String(head.headers['authorization'] ?? ''))?.[1];
    if (token !== undefined && principal !== undefined) capture.addSecret(token, principal);
    const http = { method: head.method, path: head.path.slice(0, MAX_PATH) };
    const context = {
      dir: 'c2s' as const,
      http,
      ...(principal === undefined ? {} : { principal }),
    };
    if (text === undefined) settle(capture.recordOversize(copy.bytes, context));
    else if (text === '') settle(capture.recordBare(context));
    else settle(capture.record(text, context, parsed));
  };
  const abort = (): void => {
    if (done) return;
    done = true;
    settle(capture.recordBare({ dir: 'c2s' }));
  };
  return { sink: { push: (chunk) => copy.push(chunk), end, abort }, recorded };
}

/** The HTTP part of an answer's capture lines: request, status, and a session id's digest. */
function answerHttp(
  request: RequestHead,
  answer: AnswerHead,
  capture: CaptureWriter,
  sessions: SessionRun,
): CaptureLine['http'] {
  const sessionId = answer.headers['mcp-session-id'];
  const counts = typeof sessionId === 'string' && sessions.counts(sessionId);
  return {
    method: request.method,
    path: request.path.slice(0, MAX_PATH),
    status: answer.status,
    ...(typeof sessionId === 'string' && sessionId !== ''
      ? {
          session: capture.digester.digest('session', sessionId),
          sessionBits: bitsOf(sessionId),
          ...(counts ? { sessionCounts: true as const } : {}),
        }
      : {}),
  };
}

/** Writes one answer line once the request's line is written, with the answer's context. */
type Later = (write: (context: MessageContext) => void) => void;

/** Records each event of a server-sent event stream as one line, as it arrives. */
function eventSink(capture: CaptureWriter, later: Later): BodySink {
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
  return {
    push: (chunk) => {
      if (!stopped) parser.feed(decoder.decode(chunk, { stream: true }));
    },
    end: () => undefined,
    abort: () => undefined,
  };
}

/** Records a whole answer body as one line once it is complete. */
function bodySink(capture: CaptureWriter, later: Later): BodySink {
  const body = new BodyCopy();
  return {
    push: (chunk) => body.push(chunk),
    end: () => {
      const text = body.text();
      later((context) => {
        if (text === undefined) capture.recordOversize(body.bytes, context);
        else if (text.trim() === '') capture.recordBare(context);
        else capture.record(text, context, parse(text));
      });
    },
    // A body cut short is not a message: nothing is recorded, as for a cancelled stream.
    abort: () => undefined,
  };
}

/** Records an answer's messages once the request's line is written, in arrival order. */
export function recordAnswer(
  request: RequestHead,
  answer: AnswerHead,
  capture: CaptureWriter,
  recorded: RecordedRequest,
  sessions: SessionRun,
): BodySink {
  const http = answerHttp(request, answer, capture, sessions);
  const later: Later = (write) => {
    const now = (re: number): void => {
      const { principal } = recorded;
      write({ dir: 's2c', re, http, ...(principal === undefined ? {} : { principal }) });
    };
    // Written at once when the request's line is (a later request's line must not come first).
    if (recorded.written !== undefined) now(recorded.written);
    else void recorded.line.then(now);
  };
  const type = String(answer.headers['content-type'] ?? '').toLowerCase();
  return type.startsWith('text/event-stream')
    ? eventSink(capture, later)
    : bodySink(capture, later);
}
