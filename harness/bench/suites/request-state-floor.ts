/**
 * The floor for sealing a `requestState`: the least any sealer must do, and nothing more.
 *
 * Serialize the state to JSON, encrypt it with AES-256-GCM under a random IV, base64url the result,
 * and all of it back (decode, decrypt, `JSON.parse`). No key ids, no claims, no binding, no expiry,
 * no canonical-encoding check. The plaintext is padded with JSON whitespace so the token is exactly as
 * long as the sealer's, so the bulk cipher and base64 work is the same on both sides and the ratio
 * measures only what the sealer adds.
 *
 * The IV comes from a pooled CSPRNG draw, as the sealer's does: a `randomBytes(12)` call per seal
 * costs a few microseconds of call overhead (a fifth of the whole floor at 16 bytes), and a floor
 * that paid it would flatter every sealer measured against it.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { createRandomPool } from '../../../src/seal/random-pool.js';

const IV_BYTES = 12;
const TAG_BYTES = 16;
const PREFIX = 'v1.';

/** A seal-and-open pair with the minimum of work. */
export interface FloorCodec {
  seal(state: unknown): string;
  open(token: string): unknown;
}

/**
 * A floor codec whose tokens are `tokenChars` long, for states whose JSON is at most that size.
 * The padding is decided once, up front, as a sealer's fixed claims would be.
 */
export function createFloorCodec(tokenChars: number, stateJsonBytes: number): FloorCodec {
  const key = randomBytes(32);
  const bodyBytes = Math.floor(((tokenChars - PREFIX.length) * 3) / 4);
  const padBytes = Math.max(0, bodyBytes - IV_BYTES - TAG_BYTES - stateJsonBytes);
  const pad = ' '.repeat(padBytes);
  const random = createRandomPool();
  return {
    seal(state) {
      const plaintext = Buffer.from(JSON.stringify(state) + pad, 'utf8');
      const iv = random(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
      const body = Buffer.concat([
        iv,
        cipher.update(plaintext),
        cipher.final(),
        cipher.getAuthTag(),
      ]);
      return PREFIX + body.toString('base64url');
    },
    open(token) {
      const body = Buffer.from(token.slice(PREFIX.length), 'base64url');
      const decipher = createDecipheriv('aes-256-gcm', key, body.subarray(0, IV_BYTES), {
        authTagLength: TAG_BYTES,
      });
      decipher.setAuthTag(body.subarray(body.length - TAG_BYTES));
      const plaintext = Buffer.concat([
        decipher.update(body.subarray(IV_BYTES, body.length - TAG_BYTES)),
        decipher.final(),
      ]);
      return JSON.parse(plaintext.toString('utf8'));
    },
  };
}
