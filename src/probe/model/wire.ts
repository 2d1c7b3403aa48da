/**
 * The wire as the engine presents it: one request's outcome and evidence, what the target said of
 * itself when it was opened, and the session that sends requests as either identity.
 */
import type { Evidence } from './evidence.js';
import type { IdentityName, TransportKind } from './target.js';
import type { PromptInfo, ToolInfo } from './tools.js';

/** Why an exchange produced no decision. None of these is ever read as a refusal. */
export const FAILURES = [
  'timeout',
  'deadline',
  'http-status',
  'empty',
  'not-json',
  'oversize',
  'transport',
  'closed',
  'spawn',
  /** The probe's `maxCalls` budget was spent: the engine refused to send. */
  'budget',
  /** The engine refused to send: a destructive tool without `--include-destructive`. */
  'blocked',
  /**
   * The server shed load (HTTP 429 or 503, an in-band rate-limit error) and the request did not get
   * through within the retries, the longest wait or the deadline: not a decision either way.
   */
  'shed',
] as const;
export type Failure = (typeof FAILURES)[number];

/**
 * The outcome of one JSON-RPC request.
 * - `result`: the server answered with a JSON-RPC result (a tool error with `isError` is still a result).
 * - `error`: the server answered with a JSON-RPC error: its decision, whatever HTTP status carried it.
 * - `failure`: no decision (timeout, 5xx, empty body, HTML page, dropped connection, …).
 */
export type Outcome =
  | {
      readonly kind: 'result';
      readonly result: Record<string, unknown>;
      /** Fields the server put beside `result` (a deviation), read as if inside it. */
      readonly lifted?: readonly string[];
    }
  | {
      readonly kind: 'error';
      readonly code: number;
      readonly message: string;
      readonly data?: unknown;
    }
  | { readonly kind: 'failure'; readonly failure: Failure; readonly detail: string };

/** One request, its outcome, and its evidence. */
export interface Exchange {
  readonly outcome: Outcome;
  readonly evidence: Evidence;
  /**
   * The exchanges this one answered, before it: a `-32021` whose capabilities the scanner then
   * declared and asked again (`capabilities.ts`). Recorded before `evidence`.
   */
  readonly earlier?: readonly Evidence[];
  /**
   * JSON-RPC requests sent on this one's behalf before it, each one more on the wire: a legacy
   * identity's `initialize` on its first request, the request asked again after a `-32021`. A
   * shed request sent again is not among them (the report counts those apart).
   */
  readonly alsoSent?: number;
}

/** What the engine learned of the target before any probe ran. */
export interface ProtocolInfo {
  /** `modern` speaks 2026-07-28; `legacy` needed `initialize`; `unknown` answered neither. */
  readonly era: 'modern' | 'legacy' | 'unknown';
  readonly protocolVersion?: string;
  readonly serverInfo?: { name?: string; version?: string };
  readonly discover: boolean;
  /**
   * The server's capabilities as a legacy `initialize` answered them (`tasks`, `tools`, …), or a
   * 2026-07-28 server's `server/discover` when the opening asked it and it answered. Bounded (an
   * oversized answer keeps none) and not in the report.
   */
  readonly capabilities?: Readonly<Record<string, unknown>>;
  readonly tools: readonly ToolInfo[];
  /** `prompts/list` (empty when the server has none or refused it). */
  readonly prompts: readonly PromptInfo[];
  /** URIs of `resources/list`. */
  readonly resources: readonly string[];
  /** URI templates of `resources/templates/list`. */
  readonly resourceTemplates: readonly string[];
  /**
   * How the server departs from 2026-07-28 without being a legacy server (no `server/discover`,
   * no `resultType`, `initialize` refused, …): observations, never a reason to stop.
   */
  readonly deviations: readonly string[];
}

/** Options of one request. */
export interface RequestOptions {
  readonly identity: IdentityName;
  /** Names the exchange in evidence, e.g. `untouched retry`. */
  readonly label: string;
  /** Aborts the request (failure `deadline`). The runner sets it; probes need not. */
  readonly signal?: AbortSignal;
  /** Per-call timeout in ms; defaults to the session's (`--timeout`). */
  readonly timeoutMs?: number;
  /** HTTP: extra request headers (a foreign `Origin`); ignored over stdio. */
  readonly headers?: Readonly<Record<string, string>>;
  /** Send to the peer (`--peer`, `--peer-stdio`) instead of the target. */
  readonly via?: 'peer';
  /**
   * HTTP: send no credential at all: no `Authorization`, no `--identity-header`, no `--header`,
   * no session id. For requests whose only question is a header check (`transport/origin`).
   */
  readonly anonymous?: true;
  /**
   * HTTP, 2025-11-25: the `Mcp-Session-Id` to present instead of the identity's own (another
   * identity's, a forged one), or `null` for none at all. Given, the identity is not initialized on
   * first use: the probe decides which session the request claims.
   */
  readonly session?: string | null;
}

/** Options of reading a 2025-11-25 server's GET event stream (see {@link LegacySessions}). */
export interface ListenOptions {
  readonly identity: IdentityName;
  readonly label: string;
  /** The `Mcp-Session-Id` to present; `null` for none; absent: the identity's own. */
  readonly session?: string | null;
  /** How long the stream is read once `during` has finished (ms). */
  readonly windowMs: number;
  /** Most bytes read from the stream; more ends the reading (`oversize`). */
  readonly maxBytes: number;
  /** Runs once the stream is open (a 2xx event stream), while it is being read. */
  readonly during?: () => Promise<unknown>;
  /** Aborts the reading (the runner sets it). */
  readonly signal?: AbortSignal;
}

/** What a GET event stream carried, and how the reading ended. */
export interface StreamReading {
  /** The HTTP status, when the server answered at all. */
  readonly status?: number;
  /** Every event's data, parsed as JSON where it is JSON, in order. */
  readonly events: unknown[];
  /**
   * `window`: read for the whole window; `ended`: the server closed the stream; `oversize`: more
   * than `maxBytes`; `refused`: the answer was not a 2xx event stream; `failure`: no answer.
   */
  readonly end: 'window' | 'ended' | 'oversize' | 'refused' | 'failure';
  /** One line on how it ended, secret-free. */
  readonly detail: string;
  readonly evidence: Evidence;
}

/**
 * A 2025-11-25 Streamable HTTP server's sessions as the scan holds them: one per identity, opened by
 * `initialize`. Present on HTTP sessions only (sessions do not exist over stdio).
 */
export interface LegacySessions {
  /** The `Mcp-Session-Id` the identity's current session was handed, if the server gave one. */
  idOf(identity: IdentityName): string | undefined;
  /** A fresh `initialize` as `identity`; its session becomes the identity's current one. */
  open(identity: IdentityName, label: string, signal?: AbortSignal): Promise<Exchange>;
  /**
   * `DELETE` of the identity's current session (the spec's way for a client to end one); the
   * identity is initialized again on its next request. The outcome is a result on a 2xx.
   */
  terminate(identity: IdentityName, label: string, signal?: AbortSignal): Promise<Exchange>;
  /** Opens the GET event stream, bounded in time and bytes, and reads it. */
  listen(options: ListenOptions): Promise<StreamReading>;
}

/** A connection to the target that sends requests as either identity. */
export interface ScanSession {
  readonly transport: TransportKind;
  readonly protocol: ProtocolInfo;
  request(
    method: string,
    params: Record<string, unknown>,
    options: RequestOptions,
  ): Promise<Exchange>;
  /** A legacy HTTP server's sessions (absent over stdio). */
  readonly sessions?: LegacySessions;
  /** The opening's first exchange of `method`, sent as A without params, if it sent one. */
  opened?(method: string): Exchange | undefined;
  close(): Promise<void>;
}
