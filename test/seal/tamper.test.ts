/**
 * The check of seed 000: take a sealed state, change one byte, retry: refused. The same state after
 * its expiry, or presented as another user: refused the same way. Untouched: accepted.
 */
import { describe, expect, it } from 'vitest';
import { createStateSealer, type StateRejection } from '../../src/index.js';
import {
  BINDING,
  catchRejection,
  expectRejected,
  flipByte,
  KEY_A,
  movableClock,
  splitToken,
} from './helpers.js';

const KID = 4;
const IV = 12;
const TAG = 16;

function setup() {
  const clock = movableClock();
  const sealer = createStateSealer({ keys: KEY_A, audience: 'reports', now: clock.now });
  const token = sealer.seal({ step: 'range', dataset: 'sales' }, BINDING);
  return { clock, sealer, token, length: splitToken(token).body.length };
}

/** Which part of the body a decoded byte index falls in. */
function region(index: number, length: number): 'kid' | 'iv' | 'ciphertext' | 'tag' {
  if (index < KID) return 'kid';
  if (index < KID + IV) return 'iv';
  if (index < length - TAG) return 'ciphertext';
  return 'tag';
}

describe('the seed 000 check', () => {
  it('accepts the untouched state', () => {
    const { sealer, token } = setup();
    expect(sealer.open(token, BINDING).state).toEqual({ step: 'range', dataset: 'sales' });
  });

  it('refuses a change of any one decoded byte: "unknown-key" in the key id, "auth" elsewhere', () => {
    const { sealer, token, length } = setup();
    const seen = new Map<string, StateRejection>();
    for (let index = 0; index < length; index++) {
      for (const mask of [0x01, 0x80]) {
        const tampered = flipByte(token, index, mask);
        expect(tampered).not.toBe(token);
        const part = region(index, length);
        const err = catchRejection(() => sealer.open(tampered, BINDING));
        expect({ part, code: err.code, reason: err.reason }).toEqual({
          part,
          code: 'ERR_STATE_REJECTED',
          reason: part === 'kid' ? 'unknown-key' : 'auth',
        });
        seen.set(part, err.reason);
      }
    }
    // Every region was exercised.
    expect([...seen.keys()].sort()).toEqual(['ciphertext', 'iv', 'kid', 'tag']);
  });

  it('refuses a change of any one character of the token, whatever it is changed to', () => {
    const { sealer, token } = setup();
    for (let i = 0; i < token.length; i++) {
      const replacement = token[i] === 'A' ? 'B' : 'A';
      const tampered = token.slice(0, i) + replacement + token.slice(i + 1);
      const err = catchRejection(() => sealer.open(tampered, BINDING));
      expect(['malformed', 'unknown-key', 'auth']).toContain(err.reason);
    }
  });

  it('refuses a body cut short or lengthened by a byte, and one too short to hold a tag', () => {
    const { sealer, token } = setup();
    const { prefix, body } = splitToken(token);
    const cuts = [body.subarray(0, body.length - 1), Buffer.concat([body, Buffer.of(0)])];
    for (const cut of cuts) {
      expectRejected(() => sealer.open(`${prefix}.${cut.toString('base64url')}`, BINDING), 'auth');
    }
    // Shorter than key id + IV + tag: malformed before any cipher work.
    expectRejected(
      () => sealer.open(`${prefix}.${body.subarray(0, 31).toString('base64url')}`, BINDING),
      'malformed',
    );
  });

  it('refuses the same state once the clock has moved past its expiry, with reason "expired"', () => {
    const { clock, sealer, token } = setup();
    clock.advance(600_000 - 1);
    expect(sealer.open(token, BINDING).state).toBeDefined();
    clock.advance(1);
    expectRejected(() => sealer.open(token, BINDING), 'expired');
  });

  it('refuses the same state presented by another principal, with reason "principal"', () => {
    const { sealer, token } = setup();
    expectRejected(
      () =>
        sealer.open(token, {
          ...BINDING,
          principal: { ...(BINDING.principal as object), subject: 'bob' },
        }),
      'principal',
    );
  });

  it('fails closed when the clock cannot tell the time', () => {
    const clock = movableClock();
    const sealer = createStateSealer({ keys: KEY_A, audience: 'reports', now: clock.now });
    const token = sealer.seal(1, BINDING);
    for (const broken of [Number.NaN, Number.POSITIVE_INFINITY, -1]) {
      clock.set(broken);
      expectRejected(() => sealer.open(token, BINDING), 'expired');
      expect(() => sealer.seal(1, BINDING)).toThrow(RangeError);
    }
  });
});
