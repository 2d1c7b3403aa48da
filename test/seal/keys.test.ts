/**
 * Keys: construction rules, rotation in three phases, the key id selecting the key (no trial
 * decryption), and seed 002's twin and stranger.
 */
import { describe, expect, it } from 'vitest';
import { createStateSealer, type StateSealerOptions } from '../../src/index.js';
import { openEnvelope, sealEnvelope } from '../../src/seal/envelope.js';
import { createKeyRing, type KeyRing } from '../../src/seal/key.js';
import { BINDING, expectRejected, KEY_A, KEY_B, KEY_C, movableClock } from './helpers.js';

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected an error, but nothing was thrown');
}

describe('constructing a sealer', () => {
  it('refuses a key shorter than 32 bytes with a RangeError naming the length, not the key', () => {
    const short = 'short-secret-31-bytes-long-xxxx';
    expect(short).toHaveLength(31);
    for (const keys of [short, [KEY_A, short], Buffer.from(short)]) {
      const err = thrown(() => createStateSealer({ keys, audience: 'reports' }));
      expect(err).toBeInstanceOf(RangeError);
      expect(String(err)).toContain('31');
      expect(String(err)).not.toContain(short);
      expect(String(err)).not.toContain('short-secret');
    }
  });

  it('counts key length in bytes, so 11 three-byte characters are long enough', () => {
    const key = '€'.repeat(11);
    expect(Buffer.byteLength(key)).toBe(33);
    const sealer = createStateSealer({ keys: key, audience: 'reports' });
    expect(sealer.open(sealer.seal(1, BINDING), BINDING).state).toBe(1);
  });

  it('refuses an empty ring and keys of the wrong type with a TypeError', () => {
    expect(() => createStateSealer({ keys: [], audience: 'reports' })).toThrow(TypeError);
    expect(() =>
      createStateSealer({ keys: [42] as unknown as string[], audience: 'reports' }),
    ).toThrow(TypeError);
  });

  it.each([
    ['ttlSeconds', Number.POSITIVE_INFINITY],
    ['ttlSeconds', Number.NaN],
    ['ttlSeconds', 0],
    ['ttlSeconds', -1],
    ['flowTtlSeconds', Number.POSITIVE_INFINITY],
    ['flowTtlSeconds', Number.NaN],
    ['maxTokenBytes', Number.POSITIVE_INFINITY],
  ])('refuses %s = %s with a RangeError', (option, value) => {
    const options = { keys: KEY_A, audience: 'reports', [option]: value } as StateSealerOptions;
    expect(() => createStateSealer(options)).toThrow(RangeError);
  });

  it('refuses an empty or missing audience with a TypeError', () => {
    expect(() => createStateSealer({ keys: KEY_A, audience: '' })).toThrow(TypeError);
    expect(() => createStateSealer({ keys: KEY_A } as unknown as StateSealerOptions)).toThrow(
      TypeError,
    );
  });

  it('refuses the same key twice in a ring with a RangeError, however it is spelled', () => {
    expect(() => createStateSealer({ keys: [KEY_A, KEY_A], audience: 'r' })).toThrow(RangeError);
    expect(() =>
      createStateSealer({ keys: [KEY_A, KEY_B, Buffer.from(KEY_A)], audience: 'r' }),
    ).toThrow(RangeError);
  });

  it('copies the key at construction: changing the caller’s buffer afterwards changes nothing', () => {
    const callerKey = Buffer.from(KEY_A);
    const sealer = createStateSealer({ keys: callerKey, audience: 'reports' });
    const before = sealer.seal({ step: 1 }, BINDING);
    callerKey.fill(0x41);
    const after = sealer.seal({ step: 2 }, BINDING);
    expect(sealer.open(before, BINDING).state).toEqual({ step: 1 });
    expect(sealer.open(after, BINDING).state).toEqual({ step: 2 });
    // The mutation was real: a sealer built from the buffer now is another key altogether.
    const mutated = createStateSealer({ keys: callerKey, audience: 'reports' });
    expectRejected(() => mutated.open(after, BINDING), 'unknown-key');
    // And the original key still opens what the first sealer made.
    const original = createStateSealer({ keys: KEY_A, audience: 'reports' });
    expect(original.open(after, BINDING).state).toEqual({ step: 2 });
  });

  it('treats a key given as text and as its UTF-8 bytes as the same key', () => {
    const asText = createStateSealer({ keys: KEY_A, audience: 'reports' });
    const asBytes = createStateSealer({
      keys: new Uint8Array(Buffer.from(KEY_A)),
      audience: 'reports',
    });
    expect(asBytes.open(asText.seal('x', BINDING), BINDING).state).toBe('x');
  });
});

describe('rotation in three phases: [old, new] → [new, old] → [new]', () => {
  const OLD = KEY_A;
  const NEW = KEY_B;
  const clock = movableClock();
  const phase = (keys: string[]) =>
    createStateSealer({ keys, audience: 'reports', now: clock.now, ttlSeconds: 600 });
  const phase1 = phase([OLD, NEW]);
  const phase2 = phase([NEW, OLD]);
  const phase3 = phase([NEW]);
  const oldId = createKeyRing(OLD, 'requestState').primary.kid.toString('hex');
  const newId = createKeyRing(NEW, 'requestState').primary.kid.toString('hex');

  it('seals with the first key of each phase', () => {
    expect(phase1.open(phase1.seal(1, BINDING), BINDING).claims.keyId).toBe(oldId);
    expect(phase2.open(phase2.seal(1, BINDING), BINDING).claims.keyId).toBe(newId);
    expect(phase3.open(phase3.seal(1, BINDING), BINDING).claims.keyId).toBe(newId);
  });

  it('opens an old-sealed state in phases 1 and 2, and refuses it in phase 3 as "unknown-key"', () => {
    const oldSealed = phase1.seal({ step: 1 }, BINDING);
    expect(phase1.open(oldSealed, BINDING).state).toEqual({ step: 1 });
    expect(phase2.open(oldSealed, BINDING).state).toEqual({ step: 1 });
    expectRejected(() => phase3.open(oldSealed, BINDING), 'unknown-key');
  });

  it('opens a new-sealed state in every phase, phase 1 included (instances mid-rollout)', () => {
    const newSealed = phase2.seal({ step: 1 }, BINDING);
    for (const sealer of [phase1, phase2, phase3]) {
      expect(sealer.open(newSealed, BINDING).state).toEqual({ step: 1 });
    }
  });

  it('loses no flow in flight across the transitions until the last phase', () => {
    // Round 1 on a phase-1 instance, round 2 on a phase-2 instance, round 3 on a phase-3 instance.
    const round1 = phase1.seal({ step: 1 }, BINDING);
    clock.advance(60_000);
    const opened1 = phase2.open(round1, BINDING);
    const round2 = phase2.seal({ step: 2 }, BINDING, { continues: opened1.claims });
    clock.advance(60_000);
    const opened2 = phase3.open(round2, BINDING);
    expect(opened2.state).toEqual({ step: 2 });
    expect(opened2.claims.flowExpiresAt).toBe(opened1.claims.flowExpiresAt);
    // A round-1 state still held by a slow client is the only casualty, and only in phase 3.
    expectRejected(() => phase3.open(round1, BINDING), 'unknown-key');
  });
});

describe('the key id selects the key', () => {
  /** A ring that records lookups and refuses to be iterated (iteration would mean trial decryption). */
  function watched(ring: KeyRing): { ring: KeyRing; lookups: string[] } {
    const lookups: string[] = [];
    return {
      lookups,
      ring: {
        primary: ring.primary,
        get all(): never {
          throw new Error('the ring was iterated');
        },
        find(kid) {
          lookups.push(kid.toString('hex'));
          return ring.find(kid);
        },
      },
    };
  }

  it('opens with exactly one lookup by key id and never walks the ring', () => {
    const ring = createKeyRing([KEY_C, KEY_B, KEY_A], 'requestState');
    const byA = createKeyRing(KEY_A, 'requestState').primary;
    const token = sealEnvelope('v1', byA, Buffer.alloc(12, 1), Buffer.from('payload'));
    const { ring: spy, lookups } = watched(ring);
    const opened = openEnvelope('v1', spy, token);
    expect(opened.ok && opened.plaintext.toString()).toBe('payload');
    expect(lookups).toEqual([byA.kid.toString('hex')]);
  });

  it('refuses an unknown key id without trying any key', () => {
    const ring = createKeyRing([KEY_A, KEY_B], 'requestState');
    const stranger = createKeyRing(KEY_C, 'requestState').primary;
    const token = sealEnvelope('v1', stranger, Buffer.alloc(12, 1), Buffer.from('payload'));
    const { ring: spy, lookups } = watched(ring);
    expect(openEnvelope('v1', spy, token)).toEqual({ ok: false, reason: 'unknown-key' });
    expect(lookups).toHaveLength(1);
  });
});

describe('the twin and the stranger (seed 002)', () => {
  const shared = { keys: [KEY_A], audience: 'reports' };

  it('lets two instances sharing key and audience finish each other’s flows', () => {
    const one = createStateSealer(shared);
    const twin = createStateSealer(shared);
    const round1 = one.seal({ step: 'dataset' }, BINDING);
    const opened = twin.open(round1, BINDING);
    const round2 = twin.seal({ ...(opened.state as object), dataset: 'sales' }, BINDING, {
      continues: opened.claims,
    });
    expect(one.open(round2, BINDING).state).toEqual({ step: 'dataset', dataset: 'sales' });
  });

  it('has an instance with its own key refuse them with reason "unknown-key"', () => {
    const one = createStateSealer(shared);
    const stranger = createStateSealer({ keys: [KEY_C], audience: 'reports' });
    const round1 = one.seal({ step: 'dataset' }, BINDING);
    expectRejected(() => stranger.open(round1, BINDING), 'unknown-key');
    expectRejected(
      () => one.open(stranger.seal({ step: 'dataset' }, BINDING), BINDING),
      'unknown-key',
    );
  });
});
