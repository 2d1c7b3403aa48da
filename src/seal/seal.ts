/**
 * The `requestState` sealer: AES-256-GCM under an HKDF sub-key, bound to principal, request and
 * audience, with a per-round expiry and an absolute flow deadline.
 */
import { StateRejectedError, type StateRejection } from '../errors.js';
import { positiveOption, sameTag } from './checks.js';
import type { StateBinding } from './binding.js';
import {
  decodeClaims,
  encodeClaims,
  JTI_BYTES,
  MAX_NAME_BYTES,
  PRINCIPAL_TAG_BYTES,
  type RawClaims,
} from './claims.js';
import { createDigester } from './digest.js';
import { IV_BYTES, openEnvelope, sealEnvelope } from './envelope.js';
import { clockOption, MAX_TIME, readClock, type Clock } from './clock.js';
import { createKeyRing, type KeyRing, type KeysInput } from './key.js';
import { createPrincipalTagger, type PrincipalTagger } from './principal-tag.js';
import { createRandomPool, type RandomSource } from './random-pool.js';

/** The prefix of every sealed `requestState`: format version 1. */
export const STATE_PREFIX = 'v1';

/** Options of {@link createStateSealer}. */
export interface StateSealerOptions {
  /** One secret (≥ 32 bytes) or a ring: the first seals, every one opens. */
  keys: KeysInput;
  /** The server's name. A state sealed for one audience never opens for another sharing the key. */
  audience: string;
  /** Lifetime of one round, restarted each time a round is sealed. Default 600. */
  ttlSeconds?: number;
  /** Absolute deadline of the whole multi-round flow, carried from round to round. Default 3600. */
  flowTtlSeconds?: number;
  /** Tokens longer than this are refused before any decoding. Default 8192. */
  maxTokenBytes?: number;
  /** Clock in milliseconds, like `Date.now`. */
  now?: () => number;
}

/** What was sealed beside the state, as `open` reports it. */
export interface StateClaims {
  /** Random id of this token (base64url), for single-use ledgers. */
  readonly tokenId: string;
  readonly issuedAt: number;
  readonly expiresAt: number;
  readonly flowExpiresAt: number;
  readonly audience: string;
  readonly method: string;
  readonly name: string | undefined;
  /** Key id (hex) of the secret that sealed it. */
  readonly keyId: string;
}

/** An opened state and its claims. */
export interface OpenedState<T = unknown> {
  readonly state: T;
  readonly claims: StateClaims;
}

/** Options of one `seal` call. */
export interface SealOptions {
  /**
   * The claims of the round this one continues (as `open` returned them): its flow deadline is carried
   * over, never extended. A deadline later than a fresh flow's would be is cut back to that.
   */
  continues?: Pick<StateClaims, 'flowExpiresAt'>;
}

/**
 * A binding whose argument and question digests were computed once, by `prepare`. It is a frozen
 * copy: changing the arguments afterwards changes nothing of what it binds.
 */
export type PreparedBinding = Readonly<StateBinding>;

/** Seals and opens `requestState` tokens. Pure and synchronous. */
export interface StateSealer {
  seal(state: unknown, binding: StateBinding, options?: SealOptions): string;
  open<T = unknown>(token: unknown, binding: StateBinding): OpenedState<T>;
  /**
   * Digest a request's binding once, before anything acts on it, so that neither `open` nor a later
   * `seal` can fail on it. Arguments or questions that canonical JSON refuses (a lone surrogate, which
   * JSON text can carry as `"\ud800"`) come from the client: they throw
   * `StateRejectedError('request')`, like arguments that do not match. A missing method or a name
   * that is not a string is the caller's bug: `TypeError`.
   */
  prepare(binding: StateBinding): PreparedBinding;
}

/** The digests of a prepared binding, by the frozen binding object. */
interface Digests {
  readonly args: Buffer;
  readonly question: Buffer | undefined;
}
const PREPARED = new WeakMap<object, Digests>();

function checkBinding(binding: StateBinding): void {
  if (typeof binding?.method !== 'string') throw new TypeError('binding.method is required');
  if (binding.name !== undefined && typeof binding.name !== 'string') {
    throw new TypeError(`binding.name must be a string, got ${typeof binding.name}`);
  }
}

/** What a sealer holds: its checked settings, its key ring and its digesters. */
interface Sealer {
  readonly ring: KeyRing;
  readonly audience: string;
  readonly ttlMs: number;
  readonly flowTtlMs: number;
  readonly maxTokenBytes: number;
  readonly now: Clock;
  readonly randomBytes: RandomSource;
  readonly principalTag: PrincipalTagger;
  /** The digests of a binding: remembered if it was prepared, else computed (and may throw). */
  readonly digestsOf: (binding: StateBinding) => Digests;
}

const reject = (reason: StateRejection): never => {
  throw new StateRejectedError(reason);
};

/**
 * @internal The sealer with an injectable source of randomness, so test vectors can pin the IV and
 * token id. Use {@link createStateSealer}.
 */
export function createStateSealerWith(
  options: StateSealerOptions,
  randomBytes: RandomSource,
): StateSealer {
  const sealer = createSealer(options, randomBytes);
  return {
    prepare: (binding) => prepareBinding(sealer, binding),
    seal: (state, binding, sealOptions) => sealState(sealer, state, binding, sealOptions),
    open: <T>(token: unknown, binding: StateBinding) => openState<T>(sealer, token, binding),
  };
}

/** Checks the options (TypeError, RangeError) and derives the key ring. */
function createSealer(options: StateSealerOptions, randomBytes: RandomSource): Sealer {
  if (typeof options !== 'object' || options === null) throw new TypeError('options are required');
  const ring = createKeyRing(options.keys, 'requestState');
  const { audience } = options;
  if (typeof audience !== 'string' || audience.length === 0) {
    throw new TypeError(`audience must be a non-empty string, got ${typeof audience}`);
  }
  // Stryker disable next-line StringLiteral: an empty encoding name is Node's default, UTF-8.
  if (Buffer.byteLength(audience, 'utf8') > 255) {
    throw new RangeError('audience must be at most 255 bytes');
  }
  const ttlMs = positiveOption('ttlSeconds', options.ttlSeconds, 600) * 1000;
  const flowTtlMs = positiveOption('flowTtlSeconds', options.flowTtlSeconds, 3600) * 1000;
  const maxTokenBytes = positiveOption('maxTokenBytes', options.maxTokenBytes, 8192);
  const now = clockOption(options.now);
  // One digester each: arguments and questions alternate within a round, and each keeps its last.
  const argsDigest = createDigester();
  const questionDigest = createDigester();
  return {
    ring,
    audience,
    ttlMs,
    flowTtlMs,
    maxTokenBytes,
    now,
    randomBytes,
    principalTag: createPrincipalTagger(PRINCIPAL_TAG_BYTES),
    digestsOf: (binding) =>
      PREPARED.get(binding) ?? {
        args: argsDigest(binding.args),
        question: binding.question === undefined ? undefined : questionDigest(binding.question),
      },
  };
}

/** {@link StateSealer.prepare}. */
function prepareBinding(sealer: Sealer, binding: StateBinding): PreparedBinding {
  checkBinding(binding);
  // The name is the client's (a resource URI can be any length): one a state cannot carry
  // would make sealing the next round fail after the handler ran, so refuse it now, as a
  // request no state can match. UTF-16 units never outnumber UTF-8 bytes: a cheap bound first.
  const { name } = binding;
  if (
    name !== undefined &&
    (name.length > MAX_NAME_BYTES || Buffer.byteLength(name, 'utf8') > MAX_NAME_BYTES)
  ) {
    return reject('request');
  }
  let digests: Digests;
  try {
    digests = sealer.digestsOf(binding);
  } catch {
    // Client data canonical JSON refuses: the same rejection as arguments that do not match.
    return reject('request');
  }
  const prepared: PreparedBinding = Object.freeze({
    principal: binding.principal,
    method: binding.method,
    name: binding.name,
    args: binding.args,
    question: binding.question,
  });
  PREPARED.set(prepared, digests);
  return prepared;
}

/** The state as JSON text; a state JSON cannot carry is the caller's bug (TypeError). */
function stateText(state: unknown): string {
  let stateJson: string | undefined;
  // Stryker disable BlockStatement: without the assignment the text stays undefined, which the next line refuses the same way.
  try {
    stateJson = JSON.stringify(state);
  } catch {
    // JSON.stringify's own message can quote the state's keys (circular paths): never pass it on.
    stateJson = undefined;
  }
  // Stryker restore BlockStatement
  if (stateJson === undefined) throw new TypeError('state must be representable as JSON');
  return stateJson;
}

/** The flow's deadline: a fresh flow's, or the one carried from the round this one continues. */
function flowDeadline(
  sealer: Sealer,
  issuedAt: number,
  sealOptions: SealOptions | undefined,
): number {
  const fresh = issuedAt + sealer.flowTtlMs;
  const carried = sealOptions?.continues?.flowExpiresAt;
  if (carried !== undefined && (!Number.isSafeInteger(carried) || carried < 0)) {
    throw new TypeError('continues.flowExpiresAt must be a time in milliseconds');
  }
  // A later round can only keep or shorten the flow's deadline, never push it out.
  return Math.min(carried ?? fresh, fresh, MAX_TIME);
}

/** {@link StateSealer.seal}. */
function sealState(
  sealer: Sealer,
  state: unknown,
  binding: StateBinding,
  sealOptions: SealOptions | undefined,
): string {
  checkBinding(binding);
  const stateJson = stateText(state);
  const issuedAt = readClock(sealer.now);
  if (issuedAt === undefined) throw new RangeError('now() must return a time in milliseconds');
  const flowExpiresAt = flowDeadline(sealer, issuedAt, sealOptions);
  const digests = sealer.digestsOf(binding);
  // One draw for the token id and the IV: the source's cost is per call, not per byte.
  const random = sealer.randomBytes(JTI_BYTES + IV_BYTES);
  const plaintext = encodeClaims(
    {
      issuedAt,
      // A round never outlives its flow, so the reported expiry is the one that will apply.
      expiresAt: Math.min(issuedAt + sealer.ttlMs, flowExpiresAt),
      flowExpiresAt,
      tokenId: random.subarray(0, JTI_BYTES),
      argsDigest: digests.args,
      principalTag: sealer.principalTag(sealer.ring.primary, binding.principal),
      questionDigest: digests.question,
      audience: sealer.audience,
      method: binding.method,
      name: binding.name,
    },
    stateJson,
  );
  return sealEnvelope(STATE_PREFIX, sealer.ring.primary, random.subarray(JTI_BYTES), plaintext);
}

/**
 * {@link StateSealer.open}: authenticate, then audience, expiry, principal and request, each a
 * rejection of its own, and only then the state.
 */
function openState<T>(sealer: Sealer, token: unknown, binding: StateBinding): OpenedState<T> {
  if (typeof token !== 'string') return reject('malformed');
  // Before any decoding: an attacker must not make us base64-decode megabytes.
  if (token.length > sealer.maxTokenBytes) return reject('too-large');
  const opened = openEnvelope(STATE_PREFIX, sealer.ring, token);
  if (!opened.ok) return reject(opened.reason);
  const decoded = decodeClaims(opened.plaintext);
  if (decoded === undefined) return reject('malformed');
  const { claims, stateJson } = decoded;
  if (claims.audience !== sealer.audience) return reject('audience');
  // A clock that cannot say what time it is cannot prove a state unexpired: fail closed.
  const at = readClock(sealer.now);
  if (at === undefined) return reject('expired');
  if (at >= claims.flowExpiresAt) return reject('flow-expired');
  if (at >= claims.expiresAt) return reject('expired');
  if (!sameTag(claims.principalTag, sealer.principalTag(opened.key, binding.principal))) {
    return reject('principal');
  }
  if (!sameRequest(sealer, claims, binding)) return reject('request');
  let state: T;
  try {
    state = JSON.parse(stateJson) as T;
  } catch {
    return reject('malformed');
  }
  return {
    state,
    claims: {
      tokenId: claims.tokenId.toString('base64url'),
      issuedAt: claims.issuedAt,
      expiresAt: claims.expiresAt,
      flowExpiresAt: claims.flowExpiresAt,
      audience: claims.audience,
      method: claims.method,
      name: claims.name,
      keyId: opened.key.kidHex,
    },
  };
}

/** Whether the sealed method, name, argument and question digests are the request's. */
function sameRequest(sealer: Sealer, claims: RawClaims, binding: StateBinding): boolean {
  let digests: Digests;
  try {
    digests = sealer.digestsOf(binding);
  } catch {
    // The arguments are the client's: a value canonical JSON refuses (a lone surrogate) is a
    // request that does not match, never a TypeError. A different answer here, after the
    // authentication, expiry and principal checks passed, would tell the client its token is
    // authentic, live and its own.
    return false;
  }
  return (
    claims.method === binding.method &&
    claims.name === binding.name &&
    sameTag(claims.argsDigest, digests.args) &&
    sameTag(claims.questionDigest, digests.question)
  );
}

const secureRandom = createRandomPool();

/**
 * Create a `requestState` sealer.
 *
 * @example
 * const sealer = createStateSealer({ keys: [process.env.STATE_KEY!], audience: 'reports' });
 * const token = sealer.seal({ step: 'range' }, { principal, method: 'tools/call', name, args });
 * const { state } = sealer.open(token, { principal, method: 'tools/call', name, args });
 */
export function createStateSealer(options: StateSealerOptions): StateSealer {
  return createStateSealerWith(options, secureRandom);
}
