/**
 * JSON-RPC framing shared by both transports: what a request looks like, which received message
 * answers it, and how an answer becomes an {@link Outcome}.
 *
 * Only a message without `method`, with our exact id, and with `result` or `error` is an answer. A
 * server→client request that reuses the client's id is still a request: taking it for the answer
 * would let a server (or a proxy) put words in its own mouth.
 */
import { boundValue, OUTCOME_LIMITS } from '../evidence/bound.js';
import type { Evidence } from '../model/evidence.js';
import type { Failure, Outcome, StreamReading } from '../model/wire.js';
import type { IdentityName } from '../model/target.js';
import { isRecord } from '../model/json.js';

/** A JSON-RPC 2.0 request as sent. */
export interface JsonRpcRequest {
  readonly jsonrpc: '2.0';
  readonly id: number;
  readonly method: string;
  readonly params: Record<string, unknown>;
}

/** A JSON-RPC 2.0 notification as sent. */
export interface JsonRpcNotification {
  readonly jsonrpc: '2.0';
  readonly method: string;
  readonly params?: Record<string, unknown>;
}

/** Why a request was aborted; carried as the `AbortSignal` reason. */
export class AbortCause extends Error {
  readonly failure: Failure;
  constructor(failure: Failure, detail: string) {
    super(detail);
    this.name = 'AbortCause';
    this.failure = failure;
  }
}

/** One request handed to a channel. The session builds the message; the channel only carries it. */
export interface ChannelRequest {
  readonly message: JsonRpcRequest;
  readonly label: string;
  readonly identity?: IdentityName;
  /** HTTP: sent as `Authorization: Bearer …`. */
  readonly bearer?: string;
  /** HTTP: the `MCP-Protocol-Version` header, when one is due. */
  readonly protocolVersion?: string;
  /** HTTP: extra headers (legacy `Mcp-Session-Id`). */
  readonly headers?: Record<string, string>;
  /** Aborted on timeout or deadline, with an {@link AbortCause} reason. */
  readonly signal: AbortSignal;
}

/** What a channel hands back: the exchange plus what the session needs to read off HTTP. */
export interface ChannelReply {
  readonly outcome: Outcome;
  readonly evidence: Evidence;
  /** HTTP: the answer's status, read to tell load shedding (429, 503) from a decision. */
  readonly status?: number;
  readonly responseHeaders?: Record<string, string>;
}

/** A GET event stream to open and read (HTTP only); see {@link ListenOptions}. */
export interface ListenRequest extends Omit<ChannelRequest, 'message'> {
  readonly windowMs: number;
  readonly maxBytes: number;
  /** Longest wait for the answer's headers (ms). */
  readonly timeoutMs: number;
  readonly during?: () => Promise<unknown>;
}

/** A thin JSON-RPC client over one transport. */
export interface Channel {
  send(request: ChannelRequest): Promise<ChannelReply>;
  /** HTTP: open the GET event stream and read it, bounded. */
  listen?(request: ListenRequest): Promise<StreamReading>;
  /** HTTP: a bodiless `DELETE` (ending a legacy session); a 2xx is a result. */
  remove?(request: Omit<ChannelRequest, 'message'>): Promise<ChannelReply>;
  notify(message: JsonRpcNotification, request: Omit<ChannelRequest, 'message'>): Promise<void>;
  /** stderr lines written since the last call (stdio only). */
  takeStderr(): string[];
  close(): Promise<void>;
}

/** True when `message` is the answer to request `id`: no `method`, same id, a result or an error. */
export function isAnswerTo(message: unknown, id: number): boolean {
  if (!isRecord(message) || 'method' in message) return false;
  return message.id === id && ('result' in message || 'error' in message);
}

/** The outcome an answer carries. A malformed error or result is a failure, not a decision. */
export function answerOutcome(message: Record<string, unknown>): Outcome {
  if ('error' in message) {
    const error = message.error;
    if (isRecord(error) && typeof error.code === 'number') {
      return {
        kind: 'error',
        code: error.code,
        message: typeof error.message === 'string' ? error.message : '',
        ...('data' in error ? { data: boundValue(error.data, OUTCOME_LIMITS) } : {}),
      };
    }
    return failure('not-json', 'answer carried an error without a numeric code');
  }
  const result = boundValue(message.result, OUTCOME_LIMITS);
  if (!isRecord(result))
    return failure('not-json', 'answer carried a result that is not an object');
  // A loosely written server may put the multi-round fields beside `result` instead of in it.
  const lifted = LIFTABLE.filter((k) => k in message && !(k in result));
  if (lifted.length === 0) return { kind: 'result', result };
  for (const k of lifted) result[k] = boundValue(message[k], OUTCOME_LIMITS);
  return { kind: 'result', result, lifted };
}

const LIFTABLE = ['resultType', 'inputRequests', 'requestState'] as const;

/** A failure outcome. */
export function failure(kind: Failure, detail: string): Outcome {
  return { kind: 'failure', failure: kind, detail };
}

/** The failure an aborted signal stands for. */
export function abortOutcome(signal: AbortSignal): Outcome {
  const reason: unknown = signal.reason;
  return reason instanceof AbortCause
    ? failure(reason.failure, reason.message)
    : failure('timeout', 'request aborted');
}

/** Parses one JSON text, or returns undefined. */
export function parseJson(text: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return undefined;
  }
}

/** A short description of a value for failure details: never its content. */
export function describeBody(text: string, contentType: string | undefined): string {
  if (text.length === 0) return 'an empty body';
  const type = contentType ? contentType.split(';')[0]?.trim() : 'no content type';
  return `a ${text.length}-byte ${type} body`;
}
