/**
 * Streamable HTTP channel: one POST per JSON-RPC message, the answer read as JSON or as a
 * request-scoped SSE stream, event by event, until the message that answers our id.
 *
 * A weaker client reads the first `data:` line and misses a server that sends a progress
 * notification first; or reads an empty 500 as a refusal. Here only a JSON-RPC answer to our id,
 * carried by a 2xx or a 4xx, is a decision (servers refuse a bad state with 200 or 400); everything
 * else (HTML, empty body, dropped connection, and any 5xx or 3xx, even one that carries a JSON-RPC
 * answer) is a failure. A gateway's 502 or a crashed handler's 500 with `-32603` says the server
 * could not decide, not that it refused: read as a refusal, an outage would clear a flawed server.
 */
import type { Redactor } from '../evidence/evidence.js';
import { httpEvidence } from '../evidence/evidence.js';
import type { HttpTls } from '../model/target.js';
import type { Outcome } from '../model/wire.js';
import { readAnswer } from './http-answer.js';
import {
  createHttpConnections,
  type ConnectionPolicy,
  type HttpConnections,
} from './http-connection.js';
import { createStreamClient } from './http-stream.js';
import type { Channel, ChannelReply, ChannelRequest, JsonRpcNotification } from './jsonrpc.js';
import { abortOutcome, failure } from './jsonrpc.js';

/** Options of an HTTP channel. */
export interface HttpChannelOptions {
  readonly url: string;
  readonly redactor: Redactor;
  /** Most bytes read for one answer, notifications included; more is failure `oversize`. */
  readonly maxAnswerBytes: number;
  /** Connection reuse; default `auto` (see {@link ConnectionPolicy}). */
  readonly connection?: ConnectionPolicy;
  /** https: extra CAs, or no verification. */
  readonly tls?: HttpTls;
}

// Methods whose target goes in `Mcp-Name` (2026-07-28 Streamable HTTP).
const NAME_PARAM: Record<string, string> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
  // The Tasks extension's Streamable HTTP binding: the task id, so a fleet routes to its holder.
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
};

/** Header-safe value: plain printable ASCII as is, anything else in the spec's base64 sentinel. */
function headerValue(value: string): string {
  return /^[\x20-\x7e]*$/.test(value) && value.trim() === value
    ? value
    : `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`;
}

/** The headers of a POST: content negotiation, the 2026-07-28 routing headers, identity, extras. */
function requestHeaders(
  req: Omit<ChannelRequest, 'message'>,
  method: string,
  params?: Record<string, unknown>,
): Record<string, string> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-method': headerValue(method),
  };
  const nameKey = NAME_PARAM[method];
  const name = nameKey && params ? params[nameKey] : undefined;
  if (typeof name === 'string') headers['mcp-name'] = headerValue(name);
  if (req.protocolVersion) headers['mcp-protocol-version'] = req.protocolVersion;
  if (req.bearer !== undefined) headers.authorization = `Bearer ${req.bearer}`;
  return { ...headers, ...req.headers };
}

// Node's codes for a certificate the client does not trust.
const UNTRUSTED_CERT = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_UNTRUSTED',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/** One line that says what went wrong and, where the user can fix it, how. */
export function connectDetail(err: unknown): string {
  const { code: raw, message } = err as { code?: unknown; message?: unknown };
  const code = typeof raw === 'string' ? raw : undefined;
  const text = typeof message === 'string' ? message : String(err);
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ECONNRESET' || message === 'socket hang up')
    return 'connection dropped before an answer';
  // OpenSSL's own message runs over several lines and names source files; say it in one.
  if (/wrong version number|packet length too long|http request/i.test(text))
    return 'TLS handshake failed: the server does not speak TLS on this port (is it http://?)';
  if (code !== undefined && UNTRUSTED_CERT.has(code))
    return `TLS certificate not trusted (${code}): give its CA with --ca <file>, or (for a test server only) --insecure`;
  if (code === 'EPROTO' || code?.startsWith('ERR_SSL_') === true)
    return `TLS handshake failed (${code}): ${
      text
        .split('\n')[0]
        ?.replace(/^.*:error:[0-9A-F]+:/, '')
        .slice(0, 120) ?? ''
    }`;
  const first = text.split('\n')[0] ?? text;
  return code && !first.includes(code) ? `${first} (${code})` : first;
}

/** What the POSTs of one channel go over. */
interface PostEnds {
  readonly url: string;
  readonly redactor: Redactor;
  readonly maxAnswerBytes: number;
  readonly connections: HttpConnections;
}

/** POSTs one request and reads its answer, with the evidence of both. */
async function send(ends: PostEnds, req: ChannelRequest): Promise<ChannelReply> {
  const { url, redactor, connections } = ends;
  const started = performance.now();
  const { message } = req;
  const headers = requestHeaders(req, message.method, message.params);
  const received: unknown[] = [];
  let status: number | undefined;
  let responseHeaders: Record<string, string> | undefined;
  let rawBody: string | undefined;
  let outcome: Outcome;
  try {
    // Redirects are never followed: one would carry the bearer token elsewhere, and it is not an
    // answer either.
    const response = await connections.post(url, headers, JSON.stringify(message), req.signal);
    status = response.status;
    responseHeaders = response.headers;
    const contentType = response.headers['content-type'];
    outcome = await readAnswer(
      response,
      contentType,
      message.id,
      received,
      (t) => {
        rawBody = t;
      },
      ends.maxAnswerBytes,
    );
  } catch (err) {
    outcome = req.signal.aborted
      ? abortOutcome(req.signal)
      : status === undefined
        ? failure('transport', connectDetail(err))
        : failure('closed', `connection dropped while reading the answer (HTTP ${status})`);
  }
  const evidence = httpEvidence(redactor, {
    label: req.label,
    ...(req.identity ? { identity: req.identity } : {}),
    request: { method: 'POST', url, headers, body: message },
    ...(status !== undefined
      ? {
          response: {
            status,
            headers: responseHeaders ?? {},
            ...(rawBody !== undefined ? { body: rawBody } : {}),
          },
        }
      : {}),
    received,
    ...(outcome.kind === 'failure' ? { error: `${outcome.failure}: ${outcome.detail}` } : {}),
    ms: Math.round(performance.now() - started),
  });
  return {
    outcome,
    evidence,
    ...(status === undefined ? {} : { status }),
    ...(responseHeaders ? { responseHeaders } : {}),
  };
}

/** POSTs one notification; its answer is not read. */
async function notify(
  ends: PostEnds,
  message: JsonRpcNotification,
  req: Omit<ChannelRequest, 'message'>,
): Promise<void> {
  try {
    const headers = requestHeaders(req, message.method, message.params);
    const response = await ends.connections.post(
      ends.url,
      headers,
      JSON.stringify(message),
      req.signal,
    );
    response.cancel();
  } catch {
    // A lost notification is visible in the next request's outcome; nothing to decide here.
  }
}

/** Creates a channel that POSTs each message to `url`. */
export function createHttpChannel(options: HttpChannelOptions): Channel {
  const { url, redactor, maxAnswerBytes } = options;
  const connections = createHttpConnections(url, options.connection ?? 'auto', options.tls);
  const ends: PostEnds = { url, redactor, maxAnswerBytes, connections };
  const { listen, remove } = createStreamClient(url, connections, redactor, connectDetail);
  return {
    send: (req) => send(ends, req),
    notify: (message, req) => notify(ends, message, req),
    listen,
    remove,
    takeStderr: () => [],
    close: async () => {
      connections.close();
    },
  };
}
