import { describe, expect, it } from 'vitest';
import { createStateSealer, StateRejectedError, type StateBinding } from '../../src/index.js';
import {
  BINDING,
  catchRejection,
  expectRejected,
  KEY_A,
  KEY_B,
  movableClock,
  splitToken,
} from './helpers.js';

const STATES: [string, unknown][] = [
  ['an object', { step: 'range', answers: { dataset: 'sales' } }],
  ['a string', 'just a string'],
  ['a number', 42.5],
  ['zero', 0],
  ['false', false],
  ['null', null],
  ['an empty object', {}],
  ['an array', [1, 'two', { three: 3 }, [null]]],
  ['a deeply nested value', { a: { b: { c: { d: { e: [{ f: 'deep' }] } } } } }],
  ['unicode text', { name: 'Zoë 🚀 日本語 \u0000 "quoted" \\ back' }],
];

describe('sealing and opening requestState', () => {
  it.each(STATES)('opens %s to an equal value, for the same binding', (_label, state) => {
    const sealer = createStateSealer({ keys: KEY_A, audience: 'reports' });
    const token = sealer.seal(state, BINDING);
    expect(sealer.open(token, BINDING).state).toEqual(state);
  });

  it('reports the claims it sealed: times, audience, method, name, key id and a token id', () => {
    const clock = movableClock();
    const sealer = createStateSealer({
      keys: [KEY_A, KEY_B],
      audience: 'reports',
      ttlSeconds: 120,
      flowTtlSeconds: 900,
      now: clock.now,
    });
    const token = sealer.seal({ step: 1 }, BINDING);
    clock.advance(1_000);
    const { claims } = sealer.open(token, BINDING);
    expect(claims).toMatchObject({
      issuedAt: clock.start,
      expiresAt: clock.start + 120_000,
      flowExpiresAt: clock.start + 900_000,
      audience: 'reports',
      method: 'tools/call',
      name: 'create_report',
    });
    // The key id is the first four decoded bytes of the token, in hex.
    expect(claims.keyId).toBe(splitToken(token).body.subarray(0, 4).toString('hex'));
    expect(claims.tokenId).toMatch(/^[A-Za-z0-9_-]{22}$/);
  });

  it('reports an absent name as undefined', () => {
    const sealer = createStateSealer({ keys: KEY_A, audience: 'reports' });
    const binding = { method: 'tools/call' };
    expect(sealer.open(sealer.seal(1, binding), binding).claims.name).toBeUndefined();
  });

  it('gives every seal a fresh token id and IV, so equal inputs never give equal tokens', () => {
    const sealer = createStateSealer({ keys: KEY_A, audience: 'reports' });
    const tokens = Array.from({ length: 50 }, () => sealer.seal({ same: true }, BINDING));
    expect(new Set(tokens).size).toBe(tokens.length);
    const ids = tokens.map((t) => sealer.open(t, BINDING).claims.tokenId);
    expect(new Set(ids).size).toBe(ids.length);
    const ivs = tokens.map((t) => splitToken(t).body.subarray(4, 16).toString('hex'));
    expect(new Set(ivs).size).toBe(ivs.length);
  });

  it('keeps the state unreadable in the token: no plaintext JSON appears in the decoded body', () => {
    const sealer = createStateSealer({ keys: KEY_A, audience: 'reports' });
    const token = sealer.seal({ secretStep: 'confidential-value' }, BINDING);
    const decoded = splitToken(token).body.toString('latin1');
    expect(decoded).not.toContain('confidential-value');
    expect(decoded).not.toContain('alice');
    expect(decoded).not.toContain('create_report');
  });

  it('seals a 16-byte state with the fullest binding into at most 320 characters', () => {
    const sealer = createStateSealer({ keys: KEY_A, audience: 'reports' });
    const state = { step: 'range' };
    expect(JSON.stringify(state)).toHaveLength(16);
    const token = sealer.seal(state, { ...BINDING, question: { pick_range: 'Which range?' } });
    expect(token.length).toBeLessThanOrEqual(320);
  });

  it('refuses states that JSON cannot carry, with a message that names no part of the state', () => {
    const sealer = createStateSealer({ keys: KEY_A, audience: 'reports' });
    const circular: Record<string, unknown> = { secretKeyName: 1 };
    circular.self = circular;
    for (const state of [undefined, () => 1, Symbol('s'), 10n, circular]) {
      let error: unknown;
      try {
        sealer.seal(state, BINDING);
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(TypeError);
      expect(String(error)).not.toContain('secretKeyName');
    }
  });
});

describe('misuse when sealing', () => {
  it('refuses a binding without a method, or with a name that is not a string, naming only types', () => {
    const sealer = createStateSealer({ keys: KEY_A, audience: 'reports' });
    const bad = [
      {},
      { method: 7 },
      { method: 'tools/call', name: 12345 },
      { method: 'tools/call', name: { secretName: 1 } },
    ] as unknown as StateBinding[];
    for (const binding of bad) {
      let error: unknown;
      try {
        sealer.seal(1, binding);
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(TypeError);
      expect(String(error)).not.toMatch(/12345|secretName/);
    }
  });
});

describe('input that is not a token', () => {
  it.each([
    ['a number', 12345],
    ['an object', { token: 'v1.abc' }],
    ['undefined', undefined],
    ['null', null],
    ['a Buffer', Buffer.from('v1.abc')],
    ['an empty string', ''],
  ])('refuses %s with reason "malformed"', (_label, input) => {
    const sealer = createStateSealer({ keys: KEY_A, audience: 'reports' });
    expectRejected(() => sealer.open(input, BINDING), 'malformed');
  });
});

describe('rejection messages', () => {
  it('never carry the state, the principal or the key, whatever the reason', () => {
    const clock = movableClock();
    const sealer = createStateSealer({ keys: KEY_A, audience: 'reports', now: clock.now });
    const secretState = { card: 'STATE-SECRET-4242' };
    const binding = { ...BINDING, principal: 'principal-alice-7f3e' };
    const token = sealer.seal(secretState, binding);
    const key = Buffer.from(KEY_A);
    const forbidden = [
      'STATE-SECRET-4242',
      'principal-alice-7f3e',
      KEY_A,
      key.toString('hex'),
      key.toString('base64'),
      key.toString('base64url'),
      token,
    ];
    const errors = [
      catchRejection(() => sealer.open(token, { ...binding, principal: 'mallory' })),
      catchRejection(() => sealer.open(`${token}=`, binding)),
      catchRejection(() => sealer.open(token.slice(0, -4) + 'AAAA', binding)),
      catchRejection(() => sealer.open(token, { ...binding, args: { other: 1 } })),
      catchRejection(() => {
        clock.advance(3_600_000);
        sealer.open(token, binding);
      }),
    ];
    const messages = new Set<string>();
    for (const err of errors) {
      for (const text of [err.message, String(err), err.stack ?? '', JSON.stringify(err)]) {
        for (const secret of forbidden) expect(text).not.toContain(secret);
      }
      messages.add(err.message);
    }
    // Every reason looks the same from outside.
    expect([...messages]).toEqual(['requestState could not be opened']);
    expect(new Set(errors.map((e) => e.reason)).size).toBeGreaterThan(3);
  });

  it('are instances of StateRejectedError with the code ERR_STATE_REJECTED', () => {
    const sealer = createStateSealer({ keys: KEY_A, audience: 'reports' });
    const err = catchRejection(() => sealer.open('v1.', BINDING));
    expect(err).toBeInstanceOf(StateRejectedError);
    expect(err).toBeInstanceOf(Error);
    expect(err.name).toBe('StateRejectedError');
    expect({ code: err.code, reason: err.reason }).toEqual({
      code: 'ERR_STATE_REJECTED',
      reason: 'malformed',
    });
  });
});
