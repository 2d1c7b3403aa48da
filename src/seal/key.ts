/**
 * Operator secrets → per-purpose sub-keys.
 *
 * One secret serves every purpose through HKDF-SHA256 with a distinct `info`, so a token sealed for
 * one purpose (a `requestState`) can never open as another (a handle). Keys are copied and derived once,
 * at construction: a caller that later mutates its buffer changes nothing here.
 */
import { createHmac, hkdfSync } from 'node:crypto';

/** The smallest secret accepted, in bytes. */
export const MIN_KEY_BYTES = 32;
/** Bytes of the key id carried in clear in every token. */
export const KID_BYTES = 4;

/** A secret as the caller gives it: UTF-8 text or raw bytes. */
export type KeyInput = string | Uint8Array;
/** One secret, or a ring of them: the first seals, every one opens. */
export type KeysInput = KeyInput | readonly KeyInput[];

/** Which kind of value a sub-key protects. */
export type KeyPurpose = 'requestState' | 'handle';

/** The sub-keys one secret yields for one purpose. */
export interface DerivedKey {
  /** Identifies the secret inside a token, so opening costs no trial decryptions. */
  readonly kid: Buffer;
  /** The key id in hex, as `open` reports it. */
  readonly kidHex: string;
  /** AES-256-GCM key. */
  readonly enc: Buffer;
  /** HMAC-SHA256 key for principal tags. */
  readonly tag: Buffer;
}

/** The derived keys of a ring, in order, with a lookup by key id. */
export interface KeyRing {
  readonly primary: DerivedKey;
  readonly all: readonly DerivedKey[];
  find(kid: Buffer): DerivedKey | undefined;
}

const SALT = Buffer.from('stateguard/v1', 'utf8');

function derive(secret: Buffer, info: string, length: number): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, SALT, info, length));
}

function toSecret(key: unknown, index: number): Buffer {
  let bytes: Buffer;
  // Stryker disable next-line StringLiteral: an empty encoding name is Node's default, UTF-8.
  if (typeof key === 'string') bytes = Buffer.from(key, 'utf8');
  else if (key instanceof Uint8Array)
    bytes = Buffer.from(key); // a copy, never a view
  else throw new TypeError(`keys[${index}] must be a string or Uint8Array, got ${typeof key}`);
  if (bytes.length < MIN_KEY_BYTES) {
    // Length only, never content.
    throw new RangeError(
      `keys[${index}] must be at least ${MIN_KEY_BYTES} bytes, got ${bytes.length}`,
    );
  }
  return bytes;
}

/** Validate and copy the secrets, and derive the sub-keys of one purpose. */
export function createKeyRing(keys: KeysInput, purpose: KeyPurpose): KeyRing {
  const list: readonly unknown[] =
    typeof keys === 'string' || keys instanceof Uint8Array ? [keys] : (keys as readonly unknown[]);
  if (!Array.isArray(list) || list.length === 0) {
    throw new TypeError('keys must hold at least one secret');
  }
  // Keyed by the 4-byte id read as a number: a lookup per open without building a string.
  const byKid = new Map<number, DerivedKey>();
  const all = list.map((key, index) => {
    const secret = toSecret(key, index);
    // The key id is purpose-independent: it names the secret, not the sub-key.
    const kid = derive(secret, 'stateguard kid', KID_BYTES);
    const derived: DerivedKey = {
      kid,
      kidHex: kid.toString('hex'),
      enc: derive(secret, `stateguard ${purpose} enc`, 32),
      tag: derive(secret, `stateguard ${purpose} principal`, 32),
    };
    const id = derived.kid.readUInt32BE(0);
    if (byKid.has(id)) throw new RangeError(`keys[${index}] repeats an earlier key`);
    byKid.set(id, derived);
    secret.fill(0);
    return derived;
  });
  return {
    primary: all[0] as DerivedKey,
    all,
    // Stryker disable next-line ConditionalExpression: the only caller (openEnvelope) always passes exactly KID_BYTES bytes.
    find: (kid) => (kid.length === KID_BYTES ? byKid.get(kid.readUInt32BE(0)) : undefined),
  };
}

/** A keyed, truncated tag of a value: binds without revealing. */
export function keyedTag(key: Buffer, value: string, bytes = 16): Buffer {
  // Stryker disable next-line StringLiteral: an empty encoding name is Node's default, UTF-8.
  return createHmac('sha256', key).update(value, 'utf8').digest().subarray(0, bytes);
}
