/**
 * The binary claims layout. Its input is authenticated, so these are checks of our own consistency:
 * every field survives the round trip, and a layout that does not hold is refused, never misread.
 */
import { describe, expect, it } from 'vitest';
import { decodeClaims, encodeClaims, type RawClaims } from '../../src/seal/claims.js';

const full: RawClaims = {
  issuedAt: 1_790_856_000_000,
  expiresAt: 1_790_856_600_000,
  flowExpiresAt: 1_790_859_600_000,
  tokenId: Buffer.alloc(16, 1),
  argsDigest: Buffer.alloc(32, 2),
  principalTag: Buffer.alloc(16, 3),
  questionDigest: Buffer.alloc(32, 4),
  audience: 'réports',
  method: 'tools/call',
  name: 'create_report ✓',
};
const bare: RawClaims = {
  ...full,
  principalTag: undefined,
  questionDigest: undefined,
  name: undefined,
};

describe('the claims layout', () => {
  it.each([
    ['every optional field', full],
    ['no optional field', bare],
    ['an empty name', { ...full, name: '' }],
  ])('round-trips claims with %s and the state text', (_label, claims) => {
    const state = JSON.stringify({ step: 'ünïcode', n: [1, 2] });
    expect(decodeClaims(encodeClaims(claims, state))).toEqual({ claims, stateJson: state });
  });

  it.each([
    ['short ASCII', 'create_report'],
    ['ASCII past the short-string loop', 'n'.repeat(129)],
    ['ASCII then one non-ASCII character', `${'a'.repeat(40)}é`],
    ['non-ASCII first', 'ÿ-then-ascii'],
    ['astral characters', '🚀 report 🚀'],
    ['long non-ASCII', 'ü'.repeat(300)],
  ])('writes %s text fields as their exact UTF-8', (_label, text) => {
    const claims = { ...full, audience: text.slice(0, 60), method: text.slice(0, 80), name: text };
    const bytes = encodeClaims(claims, text);
    expect(decodeClaims(bytes)).toEqual({ claims, stateJson: text });
    // The state is the last field: its bytes end the buffer, exactly as Node encodes them.
    expect(bytes.subarray(bytes.length - Buffer.byteLength(text))).toEqual(Buffer.from(text));
  });

  it('refuses a flag it does not know', () => {
    const bytes = encodeClaims(full, '{}');
    bytes[0] = (bytes[0] as number) | 0x80;
    expect(decodeClaims(bytes)).toBeUndefined();
  });

  it('refuses every truncation that cuts into a field, and never throws', () => {
    const bytes = encodeClaims(full, '');
    // With an empty state, every strict prefix cuts a field short.
    for (let n = 0; n < bytes.length; n++) {
      expect(decodeClaims(bytes.subarray(0, n))).toBeUndefined();
    }
    expect(decodeClaims(bytes)).toBeDefined();
  });

  it('refuses fields too long for their length prefix', () => {
    expect(() => encodeClaims({ ...full, method: 'm'.repeat(256) }, '{}')).toThrow(TypeError);
    expect(() => encodeClaims({ ...full, audience: 'a'.repeat(256) }, '{}')).toThrow(TypeError);
    expect(() => encodeClaims({ ...full, name: 'n'.repeat(65_536) }, '{}')).toThrow(TypeError);
    expect(encodeClaims({ ...full, name: 'n'.repeat(65_535) }, '{}').length).toBeGreaterThan(
      65_535,
    );
  });

  it('refuses a fixed-size field of the wrong size rather than padding or cutting it', () => {
    expect(() => encodeClaims({ ...full, tokenId: Buffer.alloc(15) }, '{}')).toThrow(Error);
    expect(() => encodeClaims({ ...full, principalTag: Buffer.alloc(32) }, '{}')).toThrow(Error);
  });
});
