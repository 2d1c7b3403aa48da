/**
 * Principal-bound sessions for servers that still speak the 2025-11-25 Streamable HTTP transport,
 * where a session lives behind the `Mcp-Session-Id` header.
 *
 * The security best practices (Session Hijacking) say servers MUST verify every inbound request and
 * MUST NOT use sessions for authentication, and SHOULD bind session ids to user-specific
 * information. A server that routes by session id alone serves whoever presents the id; one that
 * attributes a request without an id to "the" live session serves anyone at all. This binding does
 * neither: a session id opens its session only for the principal that created it, a request
 * without one opens nothing, and both answers are the answer for an id nobody was ever handed, so
 * the refusal says nothing about whether the id exists.
 *
 * The principal is kept as a keyed tag (HMAC-SHA256 under a per-binding random key), never in
 * clear, and compared in constant time; the tag is computed and compared for an unknown id too, so
 * "unknown" and "another principal's" take the same work.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { SessionRejection } from '../errors.js';
import type { Principal } from '../seal/binding.js';
import { positiveOption } from '../seal/checks.js';
import { describePrincipal, principalTagText } from '../seal/principal-tag.js';
import { clockOption, readClock, type Clock } from '../seal/clock.js';
import { createQuotaIndex, quotaOption } from './quota.js';

/** Options of {@link createSessionBinding}. */
export interface SessionBindingOptions<S = unknown> {
  /** A session unused this long is gone (seconds). Default 3600. */
  idleSeconds?: number;
  /**
   * Most sessions held. When full, opening one more ends the least recently used session of the
   * principal holding the most sessions, never one of a principal holding fewer. Default 10 000.
   */
  maxSessions?: number;
  /**
   * Most sessions one principal holds. A principal opening one more ends its own least recently
   * used session, never another principal's. Default 100.
   */
  maxSessionsPerPrincipal?: number;
  /** Ids longer than this are refused before any lookup (bytes). Default 256. */
  maxSessionIdBytes?: number;
  /** Told why a session id was refused, for operator logs only: never answer differently. */
  onRejected?: (reason: SessionRejection) => void;
  /**
   * Told each session the binding let go of on its own (idle past `idleSeconds`, or ended to make
   * room), with what you kept for it, so you can close it (the SDK transport). Not called for
   * `unbind`, which hands the value back itself. Exceptions are ignored.
   */
  onEvicted?: (value: S) => void;
  /** Clock in milliseconds, like `Date.now`. */
  now?: () => number;
}

/** Sessions bound to the principal that opened them. `S` is what the server keeps per session. */
export interface SessionBinding<S> {
  /**
   * A fresh session id: 192 random bits from `node:crypto`, base64url (the spec's SHOULD: globally
   * unique and cryptographically secure). Pass it as the SDK transport's `sessionIdGenerator`.
   */
  mintId(): string;
  /**
   * Binds `sessionId` (from {@link mintId}) to `principal` and keeps `value` for it. Throws
   * `TypeError` without a principal: an unbound session would be a bearer token.
   */
  bind(sessionId: string, principal: Principal, value: S): void;
  /**
   * The session `sessionId` names, if `principal` opened it and it is live; else `undefined`,
   * whatever the reason (no id, an unknown or expired id, another principal's id). Never falls back
   * to another session. Answer every `undefined` the way you answer an unknown id. The id is taken
   * as it came from the wire: a value that is not a string (a number, an array, an object) or is
   * longer than `maxSessionIdBytes` is an unknown id too, never an exception.
   */
  resolve(sessionId: unknown, principal: Principal | undefined): S | undefined;
  /** Ends the session if `principal` opened it (a `DELETE`), returning its value; else `undefined`. */
  unbind(sessionId: unknown, principal: Principal | undefined): S | undefined;
  /** How many sessions are live. */
  readonly size: number;
}

interface Entry<S> {
  readonly tag: Buffer;
  /** The tag as a string: the principal's key in the quota index. */
  readonly owner: string;
  readonly value: S;
  usedAt: number;
}

const TAG_BYTES = 32;

/**
 * Creates a session binding.
 *
 * @example
 * ```ts
 * const sessions = createSessionBinding<WebStandardStreamableHTTPServerTransport>();
 * // initialize: a transport whose id is minted and bound to the caller
 * const transport = new WebStandardStreamableHTTPServerTransport({
 *   sessionIdGenerator: () => sessions.mintId(),
 *   onsessioninitialized: (id) => sessions.bind(id, principal, transport),
 * });
 * // every other request: the caller's own session, or the unknown-session answer
 * const own = sessions.resolve(request.headers.get('mcp-session-id'), principal);
 * if (own === undefined) return sessionNotFound(); // the same 404 for unknown and foreign ids
 * ```
 */
export function createSessionBinding<S>(options: SessionBindingOptions<S> = {}): SessionBinding<S> {
  const sessions = createSessions(options);
  return {
    mintId: () => randomBytes(24).toString('base64url'),
    bind: (sessionId, principal, value) => bindSession(sessions, sessionId, principal, value),
    resolve: (sessionId, principal) => resolveSession(sessions, sessionId, principal),
    unbind(sessionId, principal) {
      const found = use(sessions, sessionId, principal);
      if (found === undefined) return undefined;
      drop(sessions, found.id);
      return found.entry.value;
    },
    get size() {
      return sessions.entries.size;
    },
  };
}

/** What a binding holds: its checked limits, its hooks, its key and its sessions. */
interface Sessions<S> {
  readonly idleMs: number;
  readonly max: number;
  readonly maxIdBytes: number;
  readonly quota: ReturnType<typeof createQuotaIndex>;
  readonly clock: Clock;
  readonly onRejected: (reason: SessionRejection) => void;
  readonly onEvicted: ((value: S) => void) | undefined;
  /** Per binding, never leaves it: a tag proves nothing outside this process. */
  readonly key: Buffer;
  /** Compared against when the id is unknown, so that path does the same work as a foreign one. */
  readonly decoy: Buffer;
  /** Insertion order is use order: a used entry is moved to the end. */
  readonly entries: Map<string, Entry<S>>;
}

/** Checks the options (RangeError) and starts with no session. */
function createSessions<S>(options: SessionBindingOptions<S>): Sessions<S> {
  const idleMs = positiveOption('idleSeconds', options.idleSeconds, 3600) * 1000;
  const max = Math.floor(positiveOption('maxSessions', options.maxSessions, 10_000));
  const maxIdBytes = Math.floor(
    positiveOption('maxSessionIdBytes', options.maxSessionIdBytes, 256),
  );
  const quota = createQuotaIndex(
    quotaOption('maxSessionsPerPrincipal', options.maxSessionsPerPrincipal, 100),
  );
  return {
    idleMs,
    max,
    maxIdBytes,
    quota,
    clock: clockOption(options.now),
    onRejected: options.onRejected ?? (() => undefined),
    onEvicted: options.onEvicted,
    key: randomBytes(32),
    decoy: randomBytes(TAG_BYTES),
    entries: new Map<string, Entry<S>>(),
  };
}

/** Forget a session, in the map and in its principal's quota. */
function drop<S>(sessions: Sessions<S>, sessionId: string): Entry<S> | undefined {
  const entry = sessions.entries.get(sessionId);
  if (entry === undefined) return undefined;
  sessions.entries.delete(sessionId);
  sessions.quota.remove(entry.owner, sessionId);
  return entry;
}

/** Drop a session the binding lets go of on its own, and tell the server. */
function evict<S>(sessions: Sessions<S>, sessionId: string): void {
  const entry = drop(sessions, sessionId);
  if (entry === undefined || sessions.onEvicted === undefined) return;
  try {
    sessions.onEvicted(entry.value);
  } catch {
    // A failing hook must not leave the binding half-updated or change an answer.
  }
}

function tagOf(sessions: Pick<Sessions<unknown>, 'key'>, principal: Principal): Buffer | undefined {
  const text = principalTagText(principal);
  return text === undefined
    ? undefined
    : createHmac('sha256', sessions.key).update(text, 'utf8').digest().subarray(0, TAG_BYTES);
}

/** {@link SessionBinding.bind}. */
function bindSession<S>(
  sessions: Sessions<S>,
  sessionId: string,
  principal: Principal,
  value: S,
): void {
  if (typeof sessionId !== 'string' || sessionId.length === 0)
    throw new TypeError(`sessionId must be a non-empty string, got ${typeof sessionId}`);
  const tag = principal === undefined ? undefined : tagOf(sessions, principal);
  // An empty principal tags as none, so "" never becomes one principal everyone shares.
  if (tag === undefined)
    throw new TypeError(
      `a session must be bound to a principal, got ${describePrincipal(principal)}`,
    );
  const at = readClock(sessions.clock);
  if (at === undefined) throw new RangeError('the clock returned no usable time');
  drop(sessions, sessionId);
  const owner = tag.toString('base64');
  makeRoom(sessions, owner, at);
  sessions.entries.set(sessionId, { tag, owner, value, usedAt: at });
  sessions.quota.add(owner, sessionId);
}

/** Room for one more session of `owner`: the idle ones first, then by quota. */
function makeRoom<S>(sessions: Sessions<S>, owner: string, at: number): void {
  const { entries, quota, max } = sessions;
  // The least recently used come first: the idle ones among them go before anyone's live one.
  for (const [id, entry] of entries) {
    if (at - entry.usedAt < sessions.idleMs) break;
    evict(sessions, id);
  }
  // Room is made from this principal's own sessions when it holds its quota, and from the
  // principal holding the most when the binding is full (quota.ts).
  for (
    let victim = quota.victim(owner, entries.size >= max);
    victim !== undefined;
    victim = quota.victim(owner, entries.size >= max)
  ) {
    evict(sessions, victim[1]);
    quota.remove(victim[0], victim[1]);
  }
}

/** {@link SessionBinding.resolve}: the session's value, now its most recently used. */
function resolveSession<S>(
  sessions: Sessions<S>,
  sessionId: unknown,
  principal: Principal | undefined,
): S | undefined {
  const found = use(sessions, sessionId, principal);
  if (found === undefined) return undefined;
  found.entry.usedAt = readClock(sessions.clock) ?? found.entry.usedAt;
  sessions.entries.delete(found.id);
  sessions.entries.set(found.id, found.entry);
  sessions.quota.add(found.entry.owner, found.id);
  return found.entry.value;
}

/** The live entry `sessionId` names for `principal`, or why not. */
function find<S>(
  sessions: Sessions<S>,
  sessionId: unknown,
  principal: Principal | undefined,
): { id: string; entry: Entry<S> } | SessionRejection {
  if (sessionId === undefined || sessionId === null || sessionId === '') return 'missing';
  // The id comes from the wire (or a framework's header parsing: a repeated header can arrive as
  // an array): anything but a string is an id nobody was handed, never an exception (a 500 where
  // an unknown id gets 404 would tell the two apart).
  if (typeof sessionId !== 'string') return 'malformed';
  // UTF-16 units never outnumber UTF-8 bytes, so the length bounds a megabyte id before counting.
  const { maxIdBytes, decoy } = sessions;
  if (sessionId.length > maxIdBytes || Buffer.byteLength(sessionId, 'utf8') > maxIdBytes)
    return 'malformed';
  const at = readClock(sessions.clock);
  if (at === undefined) return 'clock-unavailable';
  const tag = principal === undefined ? undefined : tagOf(sessions, principal);
  const entry = sessions.entries.get(sessionId);
  // Always one constant-time compare of two tags, whichever way the lookup went.
  const same = timingSafeEqual(entry?.tag ?? decoy, tag ?? decoy);
  if (entry === undefined) return 'unknown';
  if (at - entry.usedAt >= sessions.idleMs) {
    evict(sessions, sessionId);
    return 'expired';
  }
  if (tag === undefined) return 'no-principal';
  if (!same) return 'principal';
  return { id: sessionId, entry };
}

/** The live entry, or `undefined` after telling `onRejected` why not. */
function use<S>(
  sessions: Sessions<S>,
  sessionId: unknown,
  principal: Principal | undefined,
): { id: string; entry: Entry<S> } | undefined {
  const found = find(sessions, sessionId, principal);
  if (typeof found === 'string') {
    sessions.onRejected(found);
    return undefined;
  }
  return found;
}
