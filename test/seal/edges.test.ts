/**
 * The sealer at its edges: clock readings at the ends of the claims' range, layouts and plaintexts
 * only a key holder could seal (built with the internal envelope, as the vector tests do), the exact
 * bounds of the claims fields and the memo, and the text principals are tagged as.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createStateSealer, STATE_PREFIX, StateRejectedError } from '../../src/index.js';
import { encodeClaims } from '../../src/seal/claims.js';
import { MAX_TIME } from '../../src/seal/clock.js';
import { createDigester, jsonDigest } from '../../src/seal/digest.js';
import { sealEnvelope } from '../../src/seal/envelope.js';
import { createKeyRing } from '../../src/seal/key.js';
import { createMemo } from '../../src/seal/memo.js';
import { principalTagText } from '../../src/seal/principal-tag.js';
import { decodeBase64url, encodeBase64url } from '../../src/seal/base64url.js';

const KEY = 'k'.repeat(32);
const AT = 1_800_000_000_000;
const BINDING = { method: 'tools/call', name: 'pay', args: { amount: 5 } };
const NOT_JSON = new TypeError('value is not representable as JSON');

function reasonOf(open: () => unknown): string {
  try {
    open();
  } catch (error) {
    if (error instanceof StateRejectedError) return error.reason;
    throw error;
  }
  return 'opened';
}

describe('clock readings at the ends of the claims range', () => {
  it('seals at time 0 and at the last time 48 bits hold, and refuses one past it', () => {
    const at = (now: number) => createStateSealer({ keys: KEY, audience: 'a', now: () => now });
    expect(at(0).open(at(0).seal(1, BINDING), BINDING).claims.issuedAt).toBe(0);
    const last = at(MAX_TIME);
    // The flow deadline cannot pass the last time: the state is sealed already over.
    expect(reasonOf(() => last.open(last.seal(1, BINDING), BINDING))).toBe('flow-expired');
    expect(() => at(MAX_TIME + 1).seal(1, BINDING)).toThrow(
      new RangeError('now() must return a time in milliseconds'),
    );
  });

  it('names the type of a clock that is not a function', () => {
    expect(() => createStateSealer({ keys: KEY, audience: 'a', now: 5 as never })).toThrow(
      new TypeError('now must be a function, got number'),
    );
  });

  it('seals with no options for the call', () => {
    const sealer = createStateSealer({ keys: KEY, audience: 'a' });
    expect(sealer.open(sealer.seal(1, BINDING, {}), BINDING).state).toBe(1);
  });
});

describe('the claims layout at its bounds', () => {
  it('seals and opens an audience of exactly 255 bytes', () => {
    const audience = 'a'.repeat(255);
    const sealer = createStateSealer({ keys: KEY, audience });
    expect(sealer.open(sealer.seal(1, BINDING), BINDING).claims.audience).toBe(audience);
  });
});

describe('plaintexts only a key holder could seal', () => {
  const ring = createKeyRing(KEY, 'requestState');
  const sealer = () => createStateSealer({ keys: KEY, audience: 'reports', now: () => AT });
  const envelope = (plaintext: Buffer) =>
    sealEnvelope(STATE_PREFIX, ring.primary, randomBytes(12), plaintext);

  it('refuses a plaintext that holds no claims layout as malformed', () => {
    expect(reasonOf(() => sealer().open(envelope(Buffer.alloc(10)), BINDING))).toBe('malformed');
  });

  it('refuses claims that match but carry a state that is not JSON as malformed', () => {
    const plaintext = encodeClaims(
      {
        issuedAt: AT,
        expiresAt: AT + 60_000,
        flowExpiresAt: AT + 60_000,
        tokenId: randomBytes(16),
        argsDigest: jsonDigest(BINDING.args),
        principalTag: undefined,
        questionDigest: undefined,
        audience: 'reports',
        method: BINDING.method,
        name: BINDING.name,
      },
      '{not json',
    );
    expect(reasonOf(() => sealer().open(envelope(plaintext), BINDING))).toBe('malformed');
  });

  it('refuses a body exactly as long as key id, IV and tag as "auth", not "malformed"', () => {
    const genuine = sealer().seal(1, BINDING);
    const body = decodeBase64url(genuine.slice(STATE_PREFIX.length + 1)) as Buffer;
    const bare = Buffer.concat([body.subarray(0, 4), Buffer.alloc(28)]);
    expect(reasonOf(() => sealer().open(`${STATE_PREFIX}.${encodeBase64url(bare)}`, BINDING))).toBe(
      'auth',
    );
  });
});

describe('digests', () => {
  it('digests absent arguments, null and {} alike', () => {
    const empty = jsonDigest({});
    expect(jsonDigest(null)).toEqual(empty);
    expect(jsonDigest(undefined)).toEqual(empty);
    const digest = createDigester();
    expect(digest({ a: 1 })).toEqual(jsonDigest({ a: 1 }));
    expect(digest(null)).toEqual(empty);
  });

  it('refuses numbers JSON cannot carry in a flat object, with the uniform message', () => {
    expect(() => jsonDigest({ x: Number.NaN })).toThrow(NOT_JSON);
    expect(() => createDigester()({ x: Number.POSITIVE_INFINITY })).toThrow(NOT_JSON);
  });

  it('refuses a lone surrogate and a BigInt with the uniform message', () => {
    expect(() => jsonDigest({ k: '\ud800' })).toThrow(NOT_JSON);
    expect(() => jsonDigest({ list: [1n] })).toThrow(NOT_JSON);
    expect(() => createDigester()({ list: [1n] })).toThrow(NOT_JSON);
  });

  it('never takes a flat object with fewer keys for the last one it digested', () => {
    const digest = createDigester();
    expect(digest({ a: 1, b: 2 })).toEqual(jsonDigest({ a: 1, b: 2 }));
    expect(digest({ a: 1 })).toEqual(jsonDigest({ a: 1 }));
  });
});

describe('the memo bound', () => {
  it('forgets a key exactly when twice `limit` newer keys have come in', () => {
    const memo = createMemo<string>(3);
    const computed: string[] = [];
    const get = (k: string) => memo.get(k, () => (computed.push(k), k.toUpperCase()));
    get('a');
    for (const k of ['b', 'c', 'd', 'e', 'f']) get(k);
    get('a'); // five newer keys: still remembered (and now the newest)
    expect(computed).toEqual(['a', 'b', 'c', 'd', 'e', 'f']);
    const fresh = createMemo<string>(3);
    const again: string[] = [];
    const other = (k: string) => fresh.get(k, () => (again.push(k), k));
    other('a');
    for (const k of ['b', 'c', 'd', 'e', 'f', 'g']) other(k);
    other('a'); // six newer keys: forgotten
    expect(again).toEqual(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'a']);
  });

  it('remembers a key of exactly 1024 characters', () => {
    const memo = createMemo<number>(4);
    let calls = 0;
    const key = 'k'.repeat(1024);
    memo.get(key, () => ++calls);
    memo.get(key, () => ++calls);
    expect(calls).toBe(1);
  });
});

describe('the text a principal is tagged as', () => {
  it('spells each field by length, "-" for an absent one, and takes the JSON road for non-strings', () => {
    expect(principalTagText('alice')).toBe('salice');
    expect(principalTagText({ clientId: 'app' })).toBe('o3:app--');
    expect(principalTagText({ issuer: 'i' })).toBe('o-1:i-');
    expect(principalTagText({ subject: 'sub' })).toBe('o--3:sub');
    expect(principalTagText({ clientId: 'c', issuer: 'i', subject: 's' })).toBe('o1:c1:i1:s');
    expect(principalTagText({ issuer: 5 } as never)).toBe('j{"issuer":5}');
    expect(principalTagText({ subject: ['s'] } as never)).toBe('j{"subject":["s"]}');
    expect(principalTagText({})).toBeUndefined();
    expect(principalTagText(undefined)).toBeUndefined();
  });

  it('names the type of a principal that is neither a string nor an object, null included', () => {
    const error = (got: string) =>
      new TypeError(`principal must be a string or an object, got ${got}`);
    expect(() => principalTagText(null as never)).toThrow(error('object'));
    expect(() => principalTagText(5 as never)).toThrow(error('number'));
    const sealer = createStateSealer({ keys: KEY, audience: 'a' });
    expect(() => sealer.seal(1, { ...BINDING, principal: null as never })).toThrow(error('object'));
  });
});
