/**
 * Reading the answer to one POST: a JSON body (one message or a batch) or a request-scoped SSE
 * stream read event by event until the message that answers our id. Only a JSON-RPC answer to our
 * id, carried by a 2xx or a 4xx, is a decision (see `http.ts`).
 */
import { createParser } from 'eventsource-parser';
import type { Outcome } from '../model/wire.js';
import type { HttpAnswer } from './http-connection.js';
import { answerOutcome, describeBody, failure, isAnswerTo, parseJson } from './jsonrpc.js';

/** Reads an answer body, bounded, feeding `onChunk`; returns how the read ended. */
async function readBody(
  answer: HttpAnswer,
  max: number,
  onChunk: (text: string) => boolean,
): Promise<'end' | 'done' | 'oversize'> {
  const decoder = new TextDecoder();
  let bytes = 0;
  try {
    for await (const value of answer.body) {
      bytes += value.byteLength;
      if (bytes > max) return 'oversize';
      if (onChunk(decoder.decode(value, { stream: true }))) return 'done';
    }
    onChunk(decoder.decode());
    return 'end';
  } finally {
    // Dropping the connection also cancels the request server-side (the spec's HTTP cancellation).
    answer.cancel();
  }
}

/** The outcome of a JSON-RPC answer on this status: a 5xx or 3xx is never the server's decision. */
function decided(status: number, answer: Record<string, unknown>): Outcome {
  const outcome = answerOutcome(answer);
  if (
    outcome.kind === 'failure' ||
    (status >= 200 && status < 300) ||
    (status >= 400 && status < 500)
  )
    return outcome;
  const what = outcome.kind === 'error' ? `JSON-RPC error ${outcome.code}` : 'a JSON-RPC result';
  return failure('http-status', `HTTP ${status} carrying ${what}: not a decision`);
}

/**
 * The answer to `id` in a request-scoped event stream, read event by event (every event kept in
 * `received`) until the answer or the end of the stream.
 */
async function readEventStream(
  response: HttpAnswer,
  id: number,
  received: unknown[],
  maxAnswerBytes: number,
): Promise<Outcome> {
  const status = response.status;
  const httpFailed = status >= 300;
  let answer: Outcome | undefined;
  const parser = createParser({
    onEvent(event) {
      const parsed = parseJson(event.data);
      received.push(parsed ? parsed.value : event.data);
      if (answer === undefined && parsed && isAnswerTo(parsed.value, id)) {
        answer = decided(status, parsed.value as Record<string, unknown>);
      }
    },
  });
  const end = await readBody(response, maxAnswerBytes, (chunk) => {
    parser.feed(chunk);
    return answer !== undefined;
  });
  if (answer) return answer;
  if (end === 'oversize')
    return failure('oversize', `event stream exceeded ${maxAnswerBytes} bytes before an answer`);
  const what = `event stream ended after ${received.length} message(s) without an answer to id ${id}`;
  return httpFailed ? failure('http-status', `HTTP ${status}: ${what}`) : failure('closed', what);
}

/** The answer to `id` in a plain body: one JSON-RPC message or a batch, else a failure. */
async function readJson(
  response: HttpAnswer,
  contentType: string | undefined,
  id: number,
  received: unknown[],
  keepRaw: (text: string) => void,
  maxAnswerBytes: number,
): Promise<Outcome> {
  const status = response.status;
  const httpFailed = status >= 300;
  let text = '';
  const end = await readBody(response, maxAnswerBytes, (chunk) => {
    text += chunk;
    return false;
  });
  if (end === 'oversize') return failure('oversize', `answer exceeded ${maxAnswerBytes} bytes`);
  const parsed = text.length > 0 ? parseJson(text) : undefined;
  if (!parsed) {
    keepRaw(text);
    const body = describeBody(text, contentType);
    if (httpFailed) return failure('http-status', `HTTP ${status} with ${body}`);
    return text.length === 0
      ? failure('empty', `HTTP ${status} with an empty body`)
      : failure('not-json', `HTTP ${status} with ${body} that is not JSON`);
  }
  const messages = Array.isArray(parsed.value) ? parsed.value : [parsed.value];
  received.push(...messages);
  const answer = messages.find((m) => isAnswerTo(m, id));
  // A JSON-RPC error is the server's decision on a 200 or a 400 alike; on a 5xx it is not.
  if (answer) return decided(status, answer as Record<string, unknown>);
  const what = `a JSON body that is not an answer to id ${id}`;
  return httpFailed
    ? failure('http-status', `HTTP ${status} with ${what}`)
    : failure('not-json', `HTTP ${status} with ${what}`);
}

/**
 * The outcome of the answer to request `id`: read as an event stream or as JSON by its content
 * type, every message kept in `received`; a body that is not JSON goes to `keepRaw` for evidence.
 */
export async function readAnswer(
  response: HttpAnswer,
  contentType: string | undefined,
  id: number,
  received: unknown[],
  keepRaw: (text: string) => void,
  maxAnswerBytes: number,
): Promise<Outcome> {
  if (contentType?.toLowerCase().startsWith('text/event-stream'))
    return readEventStream(response, id, received, maxAnswerBytes);
  return readJson(response, contentType, id, received, keepRaw, maxAnswerBytes);
}
