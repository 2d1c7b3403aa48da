/**
 * Shared fixtures for the sealer tests: a movable clock, canonical byte-level tampering, and a
 * matcher for `{ code, reason }` of a rejection.
 */
import { expect } from 'vitest';
import { StateRejectedError, type StateRejection } from '../../src/index.js';
import type { StateBinding } from '../../src/index.js';

/** A 32-byte secret as text (distinctive, so tests can look for it in messages). */
export const KEY_A = 'key-material-A-0123456789abcdef-0123456789';
/** A second, unrelated secret. */
export const KEY_B = 'key-material-B-fedcba9876543210-fedcba9876';
/** A third, for strangers. */
export const KEY_C = 'key-material-C-00112233445566778899aabbccdd';

/** A full binding: object principal, tool, arguments. */
export const BINDING: StateBinding = {
  principal: { clientId: 'client-7', issuer: 'https://issuer.example', subject: 'alice' },
  method: 'tools/call',
  name: 'create_report',
  args: { dataset: 'sales', range: { from: '2026-01', to: '2026-03' } },
};

/** A clock tests move by hand. Starts at a fixed, realistic instant. */
export function movableClock(start = Date.UTC(2026, 9, 1, 12, 0, 0)): {
  now: () => number;
  start: number;
  set(ms: number): void;
  advance(ms: number): void;
} {
  let t = start;
  return {
    now: () => t,
    start,
    set(ms) {
      t = ms;
    },
    advance(ms) {
      t += ms;
    },
  };
}

/** Run `fn`, which must throw a `StateRejectedError`, and return it. */
export function catchRejection(fn: () => unknown): StateRejectedError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(StateRejectedError);
    return err as StateRejectedError;
  }
  throw new Error('expected a StateRejectedError, but nothing was thrown');
}

/** Assert that `fn` is refused with exactly this reason (and the state-rejected code). */
export function expectRejected(fn: () => unknown, reason: StateRejection): void {
  const err = catchRejection(fn);
  expect({ code: err.code, reason: err.reason }).toEqual({ code: 'ERR_STATE_REJECTED', reason });
}

/** Split a token into its prefix and decoded body (lenient decode is fine: the input is ours). */
export function splitToken(token: string): { prefix: string; body: Buffer } {
  const dot = token.indexOf('.');
  return { prefix: token.slice(0, dot), body: Buffer.from(token.slice(dot + 1), 'base64url') };
}

/** Rebuild a token from a prefix and body, in canonical base64url. */
export function joinToken(prefix: string, body: Uint8Array): string {
  return `${prefix}.${Buffer.from(body).toString('base64url')}`;
}

/** The token with decoded byte `index` XORed with `mask`, re-encoded canonically (a real change). */
export function flipByte(token: string, index: number, mask = 0x01): string {
  const { prefix, body } = splitToken(token);
  const copy = Buffer.from(body);
  copy[index] = (copy[index] as number) ^ mask;
  return joinToken(prefix, copy);
}
