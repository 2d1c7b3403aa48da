/**
 * The requests waiting on one stdio child: each is matched by id to a line the child writes on
 * stdout. A server that floods notifications, prints garbage or asks the client something before
 * answering still ends each request with an outcome: its lines count against the request's byte
 * limit, and what it asks is refused.
 */
import type { Redactor } from '../evidence/evidence.js';
import { jsonrpcEvidence } from '../evidence/evidence.js';
import type { Outcome } from '../model/wire.js';
import type { ChannelReply, ChannelRequest } from './jsonrpc.js';
import { abortOutcome, answerOutcome, failure, isAnswerTo, parseJson } from './jsonrpc.js';

const MAX_REPLIES = 100;
// How much of a non-protocol stdout line a failure quotes.
const NON_PROTOCOL_CHARS = 60;

interface Pending {
  readonly id: number;
  readonly received: unknown[];
  bytes: number;
  settle(outcome: Outcome): void;
}

/** The requests of one child, and what its stdout told so far. */
export interface StdioRequests {
  readonly pending: Map<number, Pending>;
  /** The outcome of every request from now on: the child is gone, or never started. */
  ended: Outcome | undefined;
  /**
   * The first bytes of the first stdout line that was not JSON: a server that logs to stdout breaks
   * the protocol, and a timeout alone would not say why.
   */
  nonProtocol: string | undefined;
  /** How many of the server's own requests were refused. */
  replies: number;
  readonly redactor: Redactor;
  readonly maxAnswerBytes: number;
  /** Writes one message to the child's stdin, while it is writable. */
  readonly writeLine: (message: unknown) => void;
}

/** No request waiting yet. */
export function createRequests(
  redactor: Redactor,
  maxAnswerBytes: number,
  writeLine: (message: unknown) => void,
): StdioRequests {
  const pending = new Map<number, Pending>();
  return {
    pending,
    ended: undefined,
    nonProtocol: undefined,
    replies: 0,
    redactor,
    maxAnswerBytes,
    writeLine,
  };
}

/** Writes `message` to the child, unless it is gone. */
export function write(r: StdioRequests, message: unknown): void {
  if (r.ended) return;
  r.writeLine(message);
}

/** Ends every waiting request, and every later one, with `outcome` (the first such wins). */
export function endAll(r: StdioRequests, outcome: Outcome): void {
  r.ended ??= outcome;
  for (const p of [...r.pending.values()]) p.settle(outcome);
}

/** A line on stdout grew past the limit: nothing waiting can be answered by it. */
export function overlongLine(r: StdioRequests): void {
  for (const p of [...r.pending.values()]) {
    p.settle(failure('oversize', `a line on stdout exceeded ${r.maxAnswerBytes} bytes`));
  }
}

/** A failure's detail says what non-protocol output the server printed, when it printed any. */
function explained(r: StdioRequests, outcome: Outcome): Outcome {
  return outcome.kind === 'failure' && r.nonProtocol !== undefined && outcome.failure !== 'oversize'
    ? failure(
        outcome.failure,
        `${outcome.detail}; the server printed non-protocol output on stdout (not JSON-RPC): ${JSON.stringify(r.nonProtocol)}`,
      )
    : outcome;
}

/** One line from stdout: the answer to a waiting request, or something each waiting one records. */
export function onLine(r: StdioRequests, raw: string): void {
  const text = raw.trim();
  if (text.length === 0) return;
  const parsed = parseJson(text);
  if (!parsed) r.nonProtocol ??= text.slice(0, NON_PROTOCOL_CHARS);
  const message = parsed ? parsed.value : text.slice(0, 2048);
  for (const p of r.pending.values()) {
    if (parsed && isAnswerTo(message, p.id)) {
      p.received.push(message);
      p.settle(answerOutcome(message as Record<string, unknown>));
      return;
    }
  }
  for (const p of [...r.pending.values()]) {
    p.bytes += text.length;
    if (p.bytes > r.maxAnswerBytes) {
      p.settle(
        failure('oversize', `more than ${r.maxAnswerBytes} bytes arrived without an answer`),
      );
    } else if (p.received.length < 1000) {
      p.received.push(message);
    }
  }
  answerServerRequest(r, message);
}

// 2026-07-28 servers must not send requests; an older one may, and may wait for the reply
// before answering us. Refuse it, so the wait ends; it is recorded, never taken for an answer.
function answerServerRequest(r: StdioRequests, message: unknown): void {
  const m = message as { id?: unknown; method?: unknown } | null;
  if (!m || typeof m.method !== 'string' || m.id === undefined || r.replies >= MAX_REPLIES) return;
  r.replies++;
  write(r, {
    jsonrpc: '2.0',
    id: m.id,
    error: { code: -32601, message: 'not supported by scanner' },
  });
}

/** The reply to `req`: its outcome, and the evidence of what was sent and received. */
export function reply(
  redactor: Redactor,
  req: ChannelRequest,
  outcome: Outcome,
  received: unknown[],
  started: number,
): ChannelReply {
  const evidence = jsonrpcEvidence(redactor, {
    label: req.label,
    ...(req.identity ? { identity: req.identity } : {}),
    transport: 'stdio',
    sent: req.message,
    received,
    ...(outcome.kind === 'failure' ? { error: `${outcome.failure}: ${outcome.detail}` } : {}),
    ms: Math.round(performance.now() - started),
  });
  return { outcome, evidence };
}

/** Writes `req` to the child and resolves once it is answered, aborted, or the child is gone. */
export function send(r: StdioRequests, req: ChannelRequest): Promise<ChannelReply> {
  const started = performance.now();
  const received: unknown[] = [];
  if (r.ended) return Promise.resolve(reply(r.redactor, req, r.ended, received, started));
  if (req.signal.aborted)
    return Promise.resolve(reply(r.redactor, req, abortOutcome(req.signal), received, started));
  return new Promise<ChannelReply>((resolve) => {
    const onAbort = (): void => entry.settle(abortOutcome(req.signal));
    const entry: Pending = {
      id: req.message.id,
      received,
      bytes: 0,
      settle(outcome) {
        if (!r.pending.delete(req.message.id)) return;
        req.signal.removeEventListener('abort', onAbort);
        resolve(reply(r.redactor, req, explained(r, outcome), received, started));
      },
    };
    r.pending.set(entry.id, entry);
    req.signal.addEventListener('abort', onAbort, { once: true });
    write(r, req.message);
  });
}
