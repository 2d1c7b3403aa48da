/**
 * The v1 wire format shared by sealed states and handles:
 *
 *     <prefix> "." base64url( kid[4] ‖ iv[12] ‖ ciphertext ‖ tag[16] )
 *
 * AES-256-GCM with a random 96-bit IV per seal. The prefix (which names the format version and the
 * purpose) and the key id are authenticated as AAD, so neither can be swapped without failing `auth`.
 */
import { createCipheriv, createDecipheriv } from 'node:crypto';
import { decodeBase64url, encodeBase64url } from './base64url.js';
import { KID_BYTES, type KeyRing, type DerivedKey } from './key.js';

export const IV_BYTES = 12;
export const TAG_BYTES = 16;
const MIN_BODY = KID_BYTES + IV_BYTES + TAG_BYTES;

/** Why an envelope did not open: the first three reasons of every rejection vocabulary. */
export type EnvelopeFailure = 'malformed' | 'unknown-key' | 'auth';

// The AAD of a (prefix, key) pair never changes; build it once rather than on every seal and open.
const aadCache = new WeakMap<DerivedKey, Map<string, Buffer>>();

function aad(prefix: string, key: DerivedKey): Buffer {
  let byPrefix = aadCache.get(key);
  // Stryker disable next-line ConditionalExpression: a cache of the AAD, which is rebuilt identically on a miss.
  if (byPrefix === undefined) aadCache.set(key, (byPrefix = new Map()));
  let value = byPrefix.get(prefix);
  // Stryker disable next-line ConditionalExpression: a cache of the AAD, which is rebuilt identically on a miss.
  if (value === undefined) {
    // Stryker disable next-line StringLiteral: an empty encoding name is Node's default, UTF-8.
    value = Buffer.concat([Buffer.from(`${prefix}.`, 'utf8'), key.kid]);
    byPrefix.set(prefix, value);
  }
  return value;
}

/** Seal plaintext under a derived key with a caller-supplied IV (random in production). */
export function sealEnvelope(
  prefix: string,
  key: DerivedKey,
  iv: Buffer,
  plaintext: Buffer,
): string {
  // Stryker disable next-line ObjectLiteral: 16 bytes is GCM's default tag length, and the tag is always sliced to 16 bytes.
  const cipher = createCipheriv('aes-256-gcm', key.enc, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(aad(prefix, key));
  const body = Buffer.concat([
    key.kid,
    iv,
    cipher.update(plaintext),
    cipher.final(),
    cipher.getAuthTag(),
  ]);
  return `${prefix}.${encodeBase64url(body)}`;
}

/** Open an envelope, or say which of the envelope-level checks failed. */
export function openEnvelope(
  prefix: string,
  ring: KeyRing,
  token: string,
): { ok: true; plaintext: Buffer; key: DerivedKey } | { ok: false; reason: EnvelopeFailure } {
  if (!token.startsWith(`${prefix}.`)) return { ok: false, reason: 'malformed' };
  const body = decodeBase64url(token.slice(prefix.length + 1));
  if (body === undefined || body.length < MIN_BODY) return { ok: false, reason: 'malformed' };
  const kid = body.subarray(0, KID_BYTES);
  const key = ring.find(kid);
  if (key === undefined) return { ok: false, reason: 'unknown-key' };
  const iv = body.subarray(KID_BYTES, KID_BYTES + IV_BYTES);
  const tag = body.subarray(body.length - TAG_BYTES);
  const ciphertext = body.subarray(KID_BYTES + IV_BYTES, body.length - TAG_BYTES);
  try {
    // Stryker disable next-line ObjectLiteral: 16 bytes is GCM's default tag length, and the tag is always sliced to 16 bytes.
    const decipher = createDecipheriv('aes-256-gcm', key.enc, iv, { authTagLength: TAG_BYTES });
    decipher.setAAD(aad(prefix, key));
    decipher.setAuthTag(tag);
    const head = decipher.update(ciphertext);
    // `final` verifies the tag (throwing on mismatch) and, for GCM, returns nothing more: skip the
    // copy that joining an empty tail would cost.
    const tail = decipher.final();
    // Stryker disable next-line ConditionalExpression,EqualityOperator,ArrayDeclaration: GCM's final() returns no bytes, so joining the empty tail or not gives the same plaintext.
    const plaintext = tail.length === 0 ? head : Buffer.concat([head, tail]);
    return { ok: true, plaintext, key };
  } catch {
    // Any cipher failure is `auth`; the cause never crosses the trust boundary.
    return { ok: false, reason: 'auth' };
  }
}
