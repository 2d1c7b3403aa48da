/**
 * What a caller of the sealer sees for each misuse: the exact error class and message (the type or
 * length of a bad value, never its content) at the exact bounds the docs give. Every sealer here is
 * built inside a test, never while the file is collected, so a mutant that breaks construction fails
 * these tests rather than the collection.
 */
import { describe, expect, it } from 'vitest';
import { createStateSealer, type StateSealerOptions } from '../../src/index.js';
import { canonicalJson } from '../../src/seal/binding.js';
import { decodeClaims, encodeClaims, type RawClaims } from '../../src/seal/claims.js';

const KEY = 'k'.repeat(32);
const AT = 1_800_000_000_000;
const BINDING = { method: 'tools/call', name: 'create_report', args: { title: 'Q3' } };
const make = (options: Partial<StateSealerOptions>) =>
  createStateSealer({ keys: KEY, audience: 'reports', ...options } as StateSealerOptions);

describe('createStateSealer options', () => {
  it('needs an options object', () => {
    expect(() => createStateSealer(null as never)).toThrow(new TypeError('options are required'));
    expect(() => createStateSealer(KEY as never)).toThrow(new TypeError('options are required'));
  });

  it('needs an audience of 1 to 255 bytes, and names the type of any other', () => {
    const error = (got: string) => new TypeError(`audience must be a non-empty string, got ${got}`);
    expect(() => make({ audience: '' })).toThrow(error('string'));
    expect(() => make({ audience: 7 as unknown as string })).toThrow(error('number'));
    expect(() => make({ audience: 'a'.repeat(255) })).not.toThrow();
    expect(() => make({ audience: 'a'.repeat(256) })).toThrow(
      new RangeError('audience must be at most 255 bytes'),
    );
    // Bytes, not characters: 128 two-byte characters are 256 bytes.
    expect(() => make({ audience: 'é'.repeat(128) })).toThrow(
      new RangeError('audience must be at most 255 bytes'),
    );
  });

  it.each(['ttlSeconds', 'flowTtlSeconds', 'maxTokenBytes'] as const)(
    'takes a positive finite %s and names the type of any other',
    (name) => {
      const error = (got: string) =>
        new RangeError(`${name} must be a positive finite number, got ${got}`);
      expect(() => make({ [name]: 0.5 })).not.toThrow();
      for (const value of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
        expect(() => make({ [name]: value })).toThrow(error('number'));
      }
      expect(() => make({ [name]: '60' as unknown as number })).toThrow(error('string'));
    },
  );

  it('names the position and type or length of a bad key, never the key', () => {
    expect(() => make({ keys: [KEY, 42 as unknown as string] })).toThrow(
      new TypeError('keys[1] must be a string or Uint8Array, got number'),
    );
    expect(() => make({ keys: [KEY, KEY.slice(0, 31)] })).toThrow(
      new RangeError('keys[1] must be at least 32 bytes, got 31'),
    );
    expect(() => make({ keys: [] })).toThrow(new TypeError('keys must hold at least one secret'));
    expect(() => make({ keys: null as never })).toThrow(
      new TypeError('keys must hold at least one secret'),
    );
    expect(() => make({ keys: ['a'.repeat(32), 'b'.repeat(32), 'a'.repeat(32)] })).toThrow(
      new RangeError('keys[2] repeats an earlier key'),
    );
    expect(() => make({ keys: new Uint8Array(32).fill(7) })).not.toThrow();
  });
});

describe('seal', () => {
  it('refuses a state JSON cannot carry', () => {
    for (const state of [undefined, () => 1, Symbol('s')]) {
      expect(() => make({}).seal(state, BINDING)).toThrow(
        new TypeError('state must be representable as JSON'),
      );
    }
  });

  it('refuses on a clock that gives no time', () => {
    expect(() => make({ now: () => Number.NaN }).seal(1, BINDING)).toThrow(
      new RangeError('now() must return a time in milliseconds'),
    );
  });

  it('names what is wrong with a binding, by type only', () => {
    const sealer = make({});
    expect(() => sealer.seal(1, {} as never)).toThrow(new TypeError('binding.method is required'));
    expect(() => sealer.seal(1, undefined as never)).toThrow(
      new TypeError('binding.method is required'),
    );
    expect(() => sealer.seal(1, { method: 'tools/call', name: 5 } as never)).toThrow(
      new TypeError('binding.name must be a string, got number'),
    );
    expect(() => sealer.seal(1, { ...BINDING, principal: 5 as never })).toThrow(
      new TypeError('principal must be a string or an object, got number'),
    );
  });

  it('takes a carried flow deadline only if it is a time in milliseconds', () => {
    const sealer = make({ now: () => AT });
    const error = new TypeError('continues.flowExpiresAt must be a time in milliseconds');
    for (const flowExpiresAt of [-1, 1.5, Number.NaN, Number.MAX_SAFE_INTEGER + 2]) {
      expect(() => sealer.seal(1, BINDING, { continues: { flowExpiresAt } })).toThrow(error);
    }
    expect(() =>
      sealer.seal(1, BINDING, { continues: { flowExpiresAt: '1' as unknown as number } }),
    ).toThrow(error);
    // Zero is a time (long past): the round is sealed already expired.
    const token = sealer.seal(1, BINDING, { continues: { flowExpiresAt: 0 } });
    expect(() => sealer.open(token, BINDING)).toThrow(
      expect.objectContaining({ reason: 'flow-expired' }),
    );
  });

  it('reports a round that ends with its flow, and a flow that ends at its deadline', () => {
    const sealer = make({ now: () => AT, ttlSeconds: 600, flowTtlSeconds: 3600 });
    const fresh = sealer.open(sealer.seal(1, BINDING), BINDING).claims;
    expect(fresh).toMatchObject({
      issuedAt: AT,
      expiresAt: AT + 600_000,
      flowExpiresAt: AT + 3_600_000,
    });
    const late = sealer.open(
      sealer.seal(1, BINDING, { continues: { flowExpiresAt: AT + 100_000 } }),
      BINDING,
    ).claims;
    expect(late).toMatchObject({ expiresAt: AT + 100_000, flowExpiresAt: AT + 100_000 });
  });
});

describe('canonical JSON and the claims layout', () => {
  it('refuses what canonical JSON cannot carry, naming nothing of it', () => {
    expect(() => canonicalJson({ secretKeyName: Number.NaN })).toThrow(
      new TypeError('value is not representable as JSON'),
    );
    expect(canonicalJson({ b: 1, a: [true, null] })).toBe('{"a":[true,null],"b":1}');
  });

  const claims: RawClaims = {
    issuedAt: AT,
    expiresAt: AT + 1,
    flowExpiresAt: AT + 2,
    tokenId: Buffer.alloc(16, 1),
    argsDigest: Buffer.alloc(32, 2),
    principalTag: undefined,
    questionDigest: undefined,
    audience: 'reports',
    method: 'tools/call',
    name: 'n',
  };

  it('names the field that is too long for its length prefix, and its length', () => {
    expect(() => encodeClaims({ ...claims, audience: 'a'.repeat(256) }, '{}')).toThrow(
      new TypeError('audience must be at most 255 bytes, got 256'),
    );
    expect(() => encodeClaims({ ...claims, method: 'm'.repeat(256) }, '{}')).toThrow(
      new TypeError('method must be at most 255 bytes, got 256'),
    );
    expect(() => encodeClaims({ ...claims, name: 'n'.repeat(65_536) }, '{}')).toThrow(
      new TypeError('name must be at most 65535 bytes, got 65536'),
    );
    expect(() => encodeClaims({ ...claims, method: 'm'.repeat(255) }, '{}')).not.toThrow();
  });

  it('round-trips an empty name and an empty state, with and without a name', () => {
    for (const layout of [
      { ...claims, name: undefined },
      { ...claims, name: '' },
    ]) {
      expect(decodeClaims(encodeClaims(layout, ''))).toEqual({ claims: layout, stateJson: '' });
    }
  });

  it('refuses every layout cut before the state starts, without a name too', () => {
    const bytes = encodeClaims({ ...claims, name: undefined }, '{"s":1}');
    const stateStart = bytes.length - '{"s":1}'.length;
    for (let length = 0; length < stateStart; length += 1) {
      expect([length, decodeClaims(bytes.subarray(0, length))]).toEqual([length, undefined]);
    }
  });

  it('names the size a fixed field must have', () => {
    expect(() => encodeClaims({ ...claims, tokenId: Buffer.alloc(15) }, '{}')).toThrow(
      new Error('claims field must be 16 bytes'),
    );
    expect(() => encodeClaims({ ...claims, argsDigest: Buffer.alloc(33) }, '{}')).toThrow(
      new Error('claims field must be 32 bytes'),
    );
  });
});
