/**
 * The bodiless half of a 2025-11-25 Streamable HTTP client: the GET event stream a session's
 * server-initiated messages travel on, and the DELETE that ends a session. Both go over the
 * channel's own connections and leave evidence like a POST does.
 *
 * A stream is read for a bounded window and a bounded number of bytes, never until the server
 * lets go: a server that holds it open forever (as it should) would otherwise hold the scan. The
 * window starts only after `during` has run, so an event the probe provokes while the stream is
 * open has the whole window to arrive. Only a 2xx `text/event-stream` answer is a stream; any other
 * answer is `refused` (its status kept), and no answer at all is `failure`.
 *
 * Some servers write nothing, not even the status line, until the stream's first event (the SDK's
 * transport without an event store does so). Waiting for headers before provoking the event would
 * then wait forever; so when no headers came within {@link SETTLE_MS}, `during` runs anyway and the
 * headers are awaited after it for twice the window. Still nothing is `failure` (no decision): a
 * quiet stream and a hung server look alike then.
 */
import { createParser } from 'eventsource-parser';
import type { Redactor } from '../evidence/evidence.js';
import { httpEvidence } from '../evidence/evidence.js';
import type { StreamReading } from '../model/wire.js';
import type { HttpConnections } from './http-connection.js';
import type { ChannelReply, ChannelRequest, ListenRequest } from './jsonrpc.js';
import { abortOutcome, failure, parseJson } from './jsonrpc.js';

// Most bytes of a refusal's body kept for evidence.
const REFUSAL_BODY_BYTES = 4096;
/** How long a GET waits for headers before it provokes its event anyway (ms). */
export const SETTLE_MS = 1000;

type Bodiless = Omit<ChannelRequest, 'message'>;

function bodilessHeaders(req: Bodiless, accept?: string): Record<string, string> {
  return {
    ...(accept === undefined ? {} : { accept }),
    ...(req.protocolVersion ? { 'mcp-protocol-version': req.protocolVersion } : {}),
    ...(req.bearer !== undefined ? { authorization: `Bearer ${req.bearer}` } : {}),
    ...req.headers,
  };
}

async function readText(body: AsyncIterable<Uint8Array>, max: number): Promise<string> {
  const decoder = new TextDecoder();
  let text = '';
  for await (const chunk of body) {
    text += decoder.decode(chunk, { stream: true });
    if (text.length > max) return text.slice(0, max);
  }
  return text + decoder.decode();
}

/** What the stream requests of one channel go over, and how a connection failure reads. */
interface StreamEnds {
  readonly url: string;
  readonly connections: HttpConnections;
  readonly redactor: Redactor;
  readonly connectDetail: (err: unknown) => string;
}

/** The GET stream and the DELETE of one channel. */
export function createStreamClient(
  url: string,
  connections: HttpConnections,
  redactor: Redactor,
  connectDetail: (err: unknown) => string,
): {
  listen(req: ListenRequest): Promise<StreamReading>;
  remove(req: Bodiless): Promise<ChannelReply>;
} {
  const ends: StreamEnds = { url, connections, redactor, connectDetail };
  return { listen: (req) => listen(ends, req), remove: (req) => remove(ends, req) };
}

/** Why no stream was read: dropped after its headers, aborted, no answer in time, or no connection. */
function droppedDetail(
  ends: StreamEnds,
  req: ListenRequest,
  seen: { status?: number; events: number; stopped: boolean; provoked: boolean },
  err: unknown,
): string {
  return seen.status !== undefined
    ? `the stream dropped after ${seen.events} event(s)`
    : req.signal.aborted
      ? failureText(req.signal)
      : seen.stopped
        ? seen.provoked
          ? `no answer (not even headers) within ${2 * req.windowMs} ms of the provoking call`
          : `no answer within ${req.timeoutMs} ms`
        : ends.connectDetail(err);
}

/**
 * Whether the headers are still due after {@link SETTLE_MS}: the server may be holding them until
 * the stream's first event.
 */
async function unsettled(pending: Promise<unknown>): Promise<boolean> {
  let settle: NodeJS.Timeout | undefined;
  return Promise.race([
    pending.then(() => false),
    new Promise<boolean>((resolve) => (settle = setTimeout(() => resolve(true), SETTLE_MS))),
  ]).finally(() => clearTimeout(settle));
}

/** Opens the GET event stream and reads it (see the module comment). */
async function listen(ends: StreamEnds, req: ListenRequest): Promise<StreamReading> {
  const started = performance.now();
  const headers = bodilessHeaders(req, 'text/event-stream');
  const events: unknown[] = [];
  const stop = new AbortController();
  let headersWait = setTimeout(() => stop.abort(), req.timeoutMs);
  const signal = AbortSignal.any([req.signal, stop.signal]);
  let early: Promise<unknown> | undefined;
  let status: number | undefined;
  let responseHeaders: Record<string, string> | undefined;
  let body: string | undefined;
  let end: StreamReading['end'];
  let detail: string;
  try {
    const pending = ends.connections.bodiless('GET', ends.url, headers, signal);
    pending.catch(() => undefined);
    if ((await unsettled(pending)) && req.during !== undefined) {
      // No headers yet: the server may be holding them until the first event, so provoke it.
      early = req.during().catch(() => undefined);
      await early;
      clearTimeout(headersWait);
      // The event is due by now: a server that writes on its first event has the window to answer.
      headersWait = setTimeout(() => stop.abort(), 2 * req.windowMs);
    }
    const answer = await pending;
    clearTimeout(headersWait);
    status = answer.status;
    responseHeaders = answer.headers;
    const sse = (answer.headers['content-type'] ?? '').toLowerCase();
    if (status < 200 || status >= 300 || !sse.startsWith('text/event-stream')) {
      body = await readText(answer.body, REFUSAL_BODY_BYTES).catch(() => '');
      answer.cancel();
      end = 'refused';
      detail = `HTTP ${status}${sse ? ` (${sse.split(';')[0]})` : ''}: not an event stream`;
    } else {
      const rest = early === undefined ? req : { ...req, during: undefined };
      ({ end, detail } = await readStream(answer.body, rest, events, () => answer.cancel()));
    }
  } catch (err) {
    clearTimeout(headersWait);
    end = status === undefined ? 'failure' : 'ended';
    const seen = { events: events.length, stopped: stop.signal.aborted, provoked: !!early };
    detail = droppedDetail(
      ends,
      req,
      { ...seen, ...(status === undefined ? {} : { status }) },
      err,
    );
  }
  const evidence = httpEvidence(ends.redactor, {
    label: req.label,
    ...(req.identity ? { identity: req.identity } : {}),
    request: { method: 'GET', url: ends.url, headers },
    ...(status !== undefined
      ? {
          response: {
            status,
            headers: responseHeaders ?? {},
            ...(body !== undefined ? { body } : {}),
          },
        }
      : {}),
    received: events,
    ...(end === 'failure' ? { error: detail } : {}),
    ms: Math.round(performance.now() - started),
  });
  return { ...(status !== undefined ? { status } : {}), events, end, detail, evidence };
}

/** Reads the open stream through `during` and then the window, or until bytes run out. */
async function readStream(
  body: AsyncIterable<Uint8Array>,
  req: ListenRequest,
  events: unknown[],
  cancel: () => void,
): Promise<{ end: StreamReading['end']; detail: string }> {
  const parser = createParser({
    onEvent(event) {
      const parsed = parseJson(event.data);
      events.push(parsed ? parsed.value : event.data);
    },
  });
  const decoder = new TextDecoder();
  let bytes = 0;
  const reading = (async (): Promise<'ended' | 'oversize'> => {
    for await (const chunk of body) {
      bytes += chunk.byteLength;
      if (bytes > req.maxBytes) return 'oversize';
      parser.feed(decoder.decode(chunk, { stream: true }));
    }
    return 'ended';
  })().catch(() => 'ended' as const);
  let timer: NodeJS.Timeout | undefined;
  try {
    // Bytes may already be waiting (a server that held its headers until the first event).
    // What the probe provokes happens while the stream is open; its own requests are bounded.
    const during = req.during?.().catch(() => undefined);
    const first = await Promise.race([reading, during?.then(() => undefined)]);
    if (first !== undefined) return ended(first, req, events);
    const window = new Promise<'window'>((resolve) => {
      timer = setTimeout(() => resolve('window'), req.windowMs);
    });
    const aborted = new Promise<'window'>((resolve) =>
      req.signal.addEventListener('abort', () => resolve('window'), { once: true }),
    );
    return ended(await Promise.race([reading, window, aborted]), req, events);
  } finally {
    clearTimeout(timer);
    cancel();
  }
}

/** How a read stream ended, in words. */
function ended(
  end: 'ended' | 'oversize' | 'window',
  req: ListenRequest,
  events: readonly unknown[],
): { end: StreamReading['end']; detail: string } {
  const n = `${events.length} event(s)`;
  if (end === 'oversize') return { end, detail: `${n}, then past ${req.maxBytes} bytes` };
  if (end === 'ended') return { end, detail: `${n}, then the server closed the stream` };
  return { end, detail: `${n} within a ${req.windowMs} ms window` };
}

/** Ends a legacy session: a bodiless DELETE, a result on a 2xx. */
async function remove(ends: StreamEnds, req: Bodiless): Promise<ChannelReply> {
  const started = performance.now();
  const headers = bodilessHeaders(req);
  let status: number | undefined;
  let responseHeaders: Record<string, string> | undefined;
  let body: string | undefined;
  let outcome: ChannelReply['outcome'];
  try {
    const answer = await ends.connections.bodiless('DELETE', ends.url, headers, req.signal);
    status = answer.status;
    responseHeaders = answer.headers;
    body = await readText(answer.body, REFUSAL_BODY_BYTES).catch(() => '');
    answer.cancel();
    outcome =
      status >= 200 && status < 300
        ? { kind: 'result', result: {} }
        : failure('http-status', `HTTP ${status} to DELETE`);
  } catch (err) {
    outcome = req.signal.aborted
      ? abortOutcome(req.signal)
      : failure('transport', ends.connectDetail(err));
  }
  const evidence = httpEvidence(ends.redactor, {
    label: req.label,
    ...(req.identity ? { identity: req.identity } : {}),
    request: { method: 'DELETE', url: ends.url, headers },
    ...(status !== undefined
      ? { response: { status, headers: responseHeaders ?? {}, ...(body ? { body } : {}) } }
      : {}),
    ...(outcome.kind === 'failure' ? { error: `${outcome.failure}: ${outcome.detail}` } : {}),
    ms: Math.round(performance.now() - started),
  });
  return { outcome, evidence };
}

/** An aborted signal's reason, in words. */
function failureText(signal: AbortSignal): string {
  const o = abortOutcome(signal);
  return o.kind === 'failure' ? `${o.failure}: ${o.detail}` : 'aborted';
}
