/**
 * Principal-bound handles: opaque ids a tool hands out (`workspace`, `basket`, …) that only the
 * principal who received them can use, for the kind and the server they were minted for, until they
 * expire.
 *
 * The 2026-07-28 security guidance says a server MUST NOT treat possession of a handle as
 * authentication. So a handle is sealed like a `requestState` (AES-256-GCM, kid in clear, principal as a
 * keyed tag) but under its own HKDF sub-key and prefix: a sealed state never opens as a handle, nor a
 * handle as a state.
 */
import { HandleRejectedError, type HandleRejection } from '../errors.js';
import { encodeBase64url } from '../seal/base64url.js';
import { positiveOption, sameTag } from '../seal/checks.js';
import type { Principal } from '../seal/binding.js';
import {
  createPrincipalTagger,
  describePrincipal,
  type PrincipalTagger,
} from '../seal/principal-tag.js';
import { clockOption, readClock, type Clock } from '../seal/clock.js';
import { createRandomPool } from '../seal/random-pool.js';
import { IV_BYTES, openEnvelope, sealEnvelope } from '../seal/envelope.js';
import {
  createKeyRing,
  keyedTag,
  type DerivedKey,
  type KeyRing,
  type KeysInput,
} from '../seal/key.js';
import {
  decodeHandleClaims,
  encodeHandleClaims,
  HANDLE_AUDIENCE_BYTES,
  HANDLE_ID_BYTES,
  HANDLE_PRINCIPAL_BYTES,
  MAX_KIND_BYTES,
} from './handle-claims.js';

/** The prefix of every handle: handle format version 1. */
export const HANDLE_PREFIX = 'h1';

/** Options of {@link createHandleBinder}. */
export interface HandleBinderOptions {
  /** One secret (≥ 32 bytes) or a ring: the first mints, every one opens. May be the sealer's keys. */
  keys: KeysInput;
  /** The server's name. A handle minted for one audience never opens for another sharing the key. */
  audience: string;
  /** Default lifetime of a handle. Default 3600 (one hour). */
  ttlSeconds?: number;
  /** Handles longer than this are refused before any decoding. Default 512. */
  maxHandleBytes?: number;
  /**
   * Let handles be minted without a principal, for servers that authenticate no one. Default `false`.
   * Such a handle is a bearer token: whoever holds it may use it until it expires, so it rests on its
   * 128 random bits and its bounded lifetime alone. Off by default so that an authenticated server
   * which forgets to pass the principal fails loudly instead of minting bearer tokens.
   */
  allowAnonymous?: boolean;
  /** Clock in milliseconds, like `Date.now`. */
  now?: () => number;
}

/** Options of one `mint` or `issue` call. */
export interface MintOptions {
  /** Lifetime of this handle, overriding the binder's default. */
  ttlSeconds?: number;
}

/** What a handle carries, as `open` and `issue` report it. */
export interface HandleClaims {
  /** Random id of this handle (base64url, 128 bits): stores key on it. */
  readonly handleId: string;
  readonly kind: string;
  readonly issuedAt: number;
  readonly expiresAt: number;
  /** Keyed tag of the principal (base64url), or `undefined` for an anonymous handle. Never the principal. */
  readonly principalTag: string | undefined;
  /** Key id (hex) of the secret that minted it. */
  readonly keyId: string;
}

/** A freshly minted handle and its claims. */
export interface IssuedHandle {
  readonly handle: string;
  readonly claims: HandleClaims;
}

/** Mints and opens principal-bound handles. Pure and synchronous. */
export interface HandleBinder {
  /** Mint a handle for `principal` and `kind`. */
  mint(principal: Principal | undefined, kind: string, options?: MintOptions): string;
  /** Mint a handle and return its claims too (stores need its id). */
  issue(principal: Principal | undefined, kind: string, options?: MintOptions): IssuedHandle;
  /**
   * Open a handle presented by `principal` for `kind`. Throws `HandleRejectedError` (one message,
   * `reason` for logs) when it is malformed, forged, foreign, of another kind or audience, or expired.
   */
  open(handle: unknown, principal: Principal | undefined, kind: string): HandleClaims;
}

const KIND = /^[A-Za-z0-9._:-]+$/;

/** @internal Validate a kind: a programmer's constant, so misuse throws `TypeError`. */
export function checkKind(kind: unknown): string {
  if (typeof kind !== 'string') throw new TypeError(`kind must be a string, got ${typeof kind}`);
  // Stryker disable next-line ConditionalExpression: the pattern already needs one character, so dropping the empty-kind test changes no answer (it only says why first).
  if (kind.length === 0 || kind.length > MAX_KIND_BYTES || !KIND.test(kind)) {
    throw new TypeError(
      `kind must be 1-${MAX_KIND_BYTES} characters of [A-Za-z0-9._:-], got length ${kind.length}`,
    );
  }
  return kind;
}

/** What a binder holds: its checked settings, its key ring and its tags. */
interface Binder {
  readonly ring: KeyRing;
  readonly ttlMs: number;
  readonly maxHandleBytes: number;
  readonly allowAnonymous: boolean;
  readonly now: Clock;
  readonly randomBytes: (n: number) => Buffer;
  /** The audience's tag under a key of the ring. */
  readonly audienceTag: (key: DerivedKey) => Buffer;
  readonly principalTag: PrincipalTagger;
}

const reject = (reason: HandleRejection): never => {
  throw new HandleRejectedError(reason);
};

/**
 * @internal The binder with an injectable source of randomness, for pinned vectors and benches. Use
 * {@link createHandleBinder}.
 */
export function createHandleBinderWith(
  options: HandleBinderOptions,
  randomBytes: (n: number) => Buffer,
): HandleBinder {
  const binder = createBinder(options, randomBytes);
  return {
    issue: (principal, kind, mintOptions) => issueHandle(binder, principal, kind, mintOptions),
    mint: (principal, kind, mintOptions) =>
      issueHandle(binder, principal, kind, mintOptions).handle,
    open: (handle, principal, kind) => openHandle(binder, handle, principal, kind),
  };
}

/** Checks the options (TypeError, RangeError) and derives the ring and the audience's tags. */
function createBinder(options: HandleBinderOptions, randomBytes: (n: number) => Buffer): Binder {
  if (typeof options !== 'object' || options === null) throw new TypeError('options are required');
  const ring = createKeyRing(options.keys, 'handle');
  const { audience } = options;
  if (typeof audience !== 'string' || audience.length === 0) {
    throw new TypeError(`audience must be a non-empty string, got ${typeof audience}`);
  }
  const ttlMs = positiveOption('ttlSeconds', options.ttlSeconds, 3600) * 1000;
  const maxHandleBytes = positiveOption('maxHandleBytes', options.maxHandleBytes, 512);
  const allowAnonymous = options.allowAnonymous === true;
  const now = clockOption(options.now);
  // The audience tag depends on the key only: derive it once per key, not per handle. Its input
  // starts with `audience:`, a principal's text with `s:` or `o:`, so the two tags never coincide.
  const audienceTags = new Map(
    ring.all.map((key) => [key, keyedTag(key.tag, `audience:${audience}`, HANDLE_AUDIENCE_BYTES)]),
  );
  return {
    ring,
    ttlMs,
    maxHandleBytes,
    allowAnonymous,
    now,
    randomBytes,
    audienceTag: (key) => audienceTags.get(key) as Buffer,
    // Under the handle sub-key; memoised per principal like the sealer's (see principal-tag.ts).
    principalTag: createPrincipalTagger(HANDLE_PRINCIPAL_BYTES),
  };
}

/** {@link HandleBinder.issue}. */
function issueHandle(
  binder: Binder,
  principal: Principal | undefined,
  kind: string,
  mintOptions?: MintOptions,
): IssuedHandle {
  checkKind(kind);
  const { ring } = binder;
  const tag = binder.principalTag(ring.primary, principal);
  // An empty principal ("", { subject: "" }) tags as none: it is refused here like a missing one,
  // or every caller resolving to "" would share one another's handles.
  if (tag === undefined && !binder.allowAnonymous) {
    throw new TypeError(
      `a principal is required to mint a handle (see allowAnonymous), got ${describePrincipal(principal)}`,
    );
  }
  const lifetime =
    mintOptions?.ttlSeconds === undefined
      ? binder.ttlMs
      : positiveOption('ttlSeconds', mintOptions.ttlSeconds, 0) * 1000;
  const issuedAt = readClock(binder.now);
  if (issuedAt === undefined) throw new RangeError('now() must return a time in milliseconds');
  const expiresAt = issuedAt + Math.ceil(lifetime);
  const key = ring.primary;
  // One draw for the id and the IV (seal/random-pool.ts says why draws are pooled).
  const random = binder.randomBytes(HANDLE_ID_BYTES + IV_BYTES);
  const handleId = random.subarray(0, HANDLE_ID_BYTES);
  const plaintext = encodeHandleClaims({
    issuedAt,
    expiresAt,
    handleId,
    principalTag: tag,
    audienceTag: binder.audienceTag(key),
    kind,
  });
  return {
    handle: sealEnvelope(HANDLE_PREFIX, key, random.subarray(HANDLE_ID_BYTES), plaintext),
    claims: {
      handleId: encodeBase64url(handleId),
      kind,
      issuedAt,
      expiresAt,
      principalTag: tag && encodeBase64url(tag),
      keyId: key.kid.toString('hex'),
    },
  };
}

/** {@link HandleBinder.open}: authenticate, then audience, principal, kind and expiry. */
function openHandle(
  binder: Binder,
  handle: unknown,
  principal: Principal | undefined,
  kind: string,
): HandleClaims {
  checkKind(kind);
  if (typeof handle !== 'string') return reject('malformed');
  // Before any decoding: an attacker must not make us base64-decode megabytes.
  if (handle.length > binder.maxHandleBytes) return reject('too-large');
  const opened = openEnvelope(HANDLE_PREFIX, binder.ring, handle);
  if (!opened.ok) return reject(opened.reason);
  const claims = decodeHandleClaims(opened.plaintext);
  if (claims === undefined) return reject('malformed');
  if (!sameTag(claims.audienceTag, binder.audienceTag(opened.key))) return reject('audience');
  // Who and what come before expiry, so a log shows a cross-principal attempt even when the
  // stolen handle is also stale.
  const expected = binder.principalTag(opened.key, principal);
  if (expected === undefined && !binder.allowAnonymous) return reject('principal');
  if (!sameTag(claims.principalTag, expected)) return reject('principal');
  if (claims.kind !== kind) return reject('kind');
  // A clock that cannot say what time it is cannot prove a handle unexpired: fail closed (a
  // comparison with NaN is false, so `now() >= expiresAt` alone would open it forever).
  const at = readClock(binder.now);
  if (at === undefined || at >= claims.expiresAt) return reject('expired');
  return {
    handleId: encodeBase64url(claims.handleId),
    kind: claims.kind,
    issuedAt: claims.issuedAt,
    expiresAt: claims.expiresAt,
    principalTag: claims.principalTag && encodeBase64url(claims.principalTag),
    keyId: opened.key.kid.toString('hex'),
  };
}

/**
 * Create a handle binder.
 *
 * @example
 * const handles = createHandleBinder({ keys: [process.env.STATE_KEY!], audience: 'reports' });
 * const workspace = handles.mint(principal, 'workspace');
 * // later, on another call (maybe another instance):
 * const { handleId } = handles.open(args.workspace, principal, 'workspace');
 */
export function createHandleBinder(options: HandleBinderOptions): HandleBinder {
  return createHandleBinderWith(options, createRandomPool());
}
