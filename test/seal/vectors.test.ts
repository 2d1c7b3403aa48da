/**
 * Pins the v1 wire format to stored vectors (generated once by running the sealer, kept as data):
 * a fixed key, clock and random source must seal to exactly the stored string, and the stored string
 * must open. A second, independent reading (HKDF + AES-GCM straight from `node:crypto`, following the
 * documented layout) checks that the format is what the README says it is.
 */
import { createDecipheriv, createHash, createHmac, hkdfSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import canonicalize from 'canonicalize';
import { describe, expect, it } from 'vitest';
import type { StateBinding } from '../../src/index.js';
import { createStateSealerWith } from '../../src/seal/seal.js';

interface Vector {
  name: string;
  random: string;
  audience: string;
  ttlSeconds: number;
  flowTtlSeconds: number;
  state: unknown;
  binding: StateBinding;
  token: string;
  claims: Record<string, unknown>;
}
interface VectorFile {
  key: string;
  now: number;
  vectors: Vector[];
}

const file = JSON.parse(
  readFileSync(new URL('../vectors/seal-v1.json', import.meta.url), 'utf8'),
) as VectorFile;
const key = Buffer.from(file.key, 'hex');

/** A random source that hands out the vector's bytes once, in order, and records the requests. */
function scripted(hex: string): {
  source: (n: number) => Buffer;
  requests: number[];
  left: () => number;
} {
  const bytes = Buffer.from(hex, 'hex');
  let offset = 0;
  const requests: number[] = [];
  return {
    requests,
    left: () => bytes.length - offset,
    source(n) {
      requests.push(n);
      if (offset + n > bytes.length) throw new Error('the vector ran out of random bytes');
      const out = Buffer.from(bytes.subarray(offset, offset + n));
      offset += n;
      return out;
    },
  };
}

function sealerFor(v: Vector, source: (n: number) => Buffer, now = file.now) {
  return createStateSealerWith(
    {
      keys: key,
      audience: v.audience,
      ttlSeconds: v.ttlSeconds,
      flowTtlSeconds: v.flowTtlSeconds,
      now: () => now,
    },
    source,
  );
}

describe('the v1 wire format', () => {
  it('has vectors to check', () => {
    expect(file.vectors.length).toBeGreaterThanOrEqual(2);
  });

  it.each(file.vectors.map((v) => [v.name, v] as const))(
    'seals to exactly the stored string (%s)',
    (_name, v) => {
      const random = scripted(v.random);
      expect(sealerFor(v, random.source).seal(v.state, v.binding)).toBe(v.token);
      // One draw per seal: token id then IV, and nothing left over.
      expect(random.requests).toEqual([28]);
      expect(random.left()).toBe(0);
    },
  );

  it.each(file.vectors.map((v) => [v.name, v] as const))(
    'opens the stored string to the stored state and claims (%s)',
    (_name, v) => {
      const sealer = sealerFor(v, scripted('').source, file.now + 1_000);
      const opened = sealer.open(v.token, v.binding);
      expect(opened.state).toEqual(v.state);
      expect(opened.claims).toEqual({ name: undefined, ...v.claims });
    },
  );

  it.each(file.vectors.map((v) => [v.name, v] as const))(
    'decrypts with an independent reading of the documented derivation and layout (%s)',
    (_name, v) => {
      const salt = Buffer.from('stateguard/v1');
      const derive = (info: string, n: number) =>
        Buffer.from(hkdfSync('sha256', key, salt, info, n));
      const [prefix, encoded] = v.token.split('.') as [string, string];
      expect(prefix).toBe('v1');
      const body = Buffer.from(encoded, 'base64url');
      const kid = body.subarray(0, 4);
      const iv = body.subarray(4, 16);
      const tag = body.subarray(body.length - 16);
      expect(kid.equals(derive('stateguard kid', 4))).toBe(true);
      expect(iv.equals(Buffer.from(v.random, 'hex').subarray(16))).toBe(true);

      const decipher = createDecipheriv(
        'aes-256-gcm',
        derive('stateguard requestState enc', 32),
        iv,
      );
      decipher.setAAD(Buffer.concat([Buffer.from('v1.'), kid]));
      decipher.setAuthTag(tag);
      const plain = Buffer.concat([
        decipher.update(body.subarray(16, body.length - 16)),
        decipher.final(),
      ]);

      // flags[1] iat[6] exp[6] flow[6] jti[16] args[32] …, and the state's JSON last.
      expect(plain.readUIntBE(1, 6)).toBe(v.claims.issuedAt);
      expect(plain.readUIntBE(7, 6)).toBe(v.claims.expiresAt);
      expect(plain.readUIntBE(13, 6)).toBe(v.claims.flowExpiresAt);
      expect(plain.subarray(19, 35).toString('base64url')).toBe(v.claims.tokenId);
      const argsText = canonicalize(v.binding.args ?? {}) as string;
      expect(plain.subarray(35, 67).equals(createHash('sha256').update(argsText).digest())).toBe(
        true,
      );
      expect(plain.toString('utf8').endsWith(JSON.stringify(v.state))).toBe(true);
      // The principal tag: HMAC-SHA256 under its own sub-key over "o" + each of clientId, issuer,
      // subject as "<length>:<text>" (or "-" when absent), truncated to 16 bytes.
      const principal = v.binding.principal;
      expect(Boolean(plain[0]! & 1)).toBe(principal !== undefined);
      if (principal !== undefined && typeof principal === 'object') {
        const f = (x: string | undefined) => (x === undefined ? '-' : `${x.length}:${x}`);
        const text = `o${f(principal.clientId)}${f(principal.issuer)}${f(principal.subject)}`;
        const tagKey = derive('stateguard requestState principal', 32);
        const tag = createHmac('sha256', tagKey).update(text).digest().subarray(0, 16);
        expect(plain.subarray(67, 83).equals(tag)).toBe(true);
      }
      // The principal appears only as a keyed tag, never in the plaintext.
      if (principal !== undefined && typeof principal === 'object') {
        expect(plain.includes(Buffer.from(principal.subject ?? 'no-subject'))).toBe(false);
      }
    },
  );
});
