/**
 * What opening a session takes and gives back, and the protocol versions it speaks: on their own so
 * the parts of a session (`session-wire.ts`, `session-era.ts` …) and `session.ts`, which puts them
 * together, all import them from here.
 */
import type { Redactor } from '../evidence/evidence.js';
import type { Evidence } from '../model/evidence.js';
import type { IdentityName } from '../model/target.js';
import type { ScanSession } from '../model/wire.js';
import type { ServerPaces } from './pace.js';

/** The protocol version the scanner speaks first. */
export const MODERN_VERSION = '2026-07-28';
/** The version offered to a legacy server in `initialize`. */
export const LEGACY_VERSION = '2025-11-25';
/** The `_meta` key that carries the identity over stdio unless `--principal-meta-key` says otherwise. */
export const DEFAULT_PRINCIPAL_META_KEY = 'io.modelcontextprotocol/principal';
/** The prefix of the spec's own `_meta` keys. */
export const META = 'io.modelcontextprotocol/';

/** Options of a session. */
export interface SessionOptions {
  readonly identities: Readonly<Record<IdentityName, string>>;
  readonly principalMetaKey: string;
  /** Per-call timeout (ms). */
  readonly timeoutMs: number;
  /**
   * How long the first answer of a stdio child may take (ms), when longer than `timeoutMs`: the
   * process has to start first, and a server run through `npx` or a compiler may take seconds.
   * Still bounded by the scan's deadline.
   */
  readonly startupTimeoutMs?: number;
  /** Most bytes of one answer. */
  readonly maxAnswerBytes: number;
  readonly redactor: Redactor;
  /** The scan's deadline: aborting it ends every request with failure `deadline`. */
  readonly signal?: AbortSignal;
  readonly clientInfo: { readonly name: string; readonly version: string };
  /**
   * HTTP: send the identity in this header instead of `Authorization: Bearer` (`value` holds
   * `{identity}` where the secret goes, e.g. `X-Api-Key: {identity}`).
   */
  readonly identityHeader?: { readonly name: string; readonly value: string };
  /**
   * stdio: the server takes its one identity from this environment variable at start, so A and B
   * are two processes of the same command, each with its own value (and no `_meta` principal).
   */
  readonly identityEnv?: string;
  /** HTTP: headers sent on every request (`--header`), after the scanner's own. */
  readonly headers?: readonly { readonly name: string; readonly value: string }[];
  /**
   * The server's paces (`pace.ts`), one per identity: every request of the session passes its
   * identity's, so a server that sheds load slows every lane, and a `Retry-After` holds only the
   * identity it was sent to; the scan reads what shedding cost from them. Default: paces of their own.
   */
  readonly paces?: ServerPaces;
}

/** A session as the engine uses it: a {@link ScanSession} plus the child's stderr. */
export interface EngineSession extends ScanSession {
  /** stderr lines the stdio child wrote since the last call. */
  takeStderr(): string[];
}

/** The result of opening a session. */
export interface OpenedSession {
  readonly session: EngineSession;
  /** The exchanges of the opening (era detection, tools/list). */
  readonly evidence: Evidence[];
  /** Set when the target answered nothing usable; names what did not answer. */
  readonly problem?: string;
}
