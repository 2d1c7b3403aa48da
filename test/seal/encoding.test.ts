/**
 * One token, one spelling: every re-encoding of a valid token is refused as "malformed" (unlike the
 * SDK codec), oversized tokens are refused before decoding, and a purpose's key never opens another's.
 */
import { describe, expect, it } from 'vitest';
import { createStateSealer, STATE_PREFIX } from '../../src/index.js';
import { decodeBase64url, encodeBase64url } from '../../src/seal/base64url.js';
import { openEnvelope, sealEnvelope } from '../../src/seal/envelope.js';
import { createKeyRing } from '../../src/seal/key.js';
import { BINDING, expectRejected, KEY_A } from './helpers.js';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const sealer = createStateSealer({ keys: KEY_A, audience: 'reports' });

/** A token whose body satisfies `accept`; bounded search (the property holds for most tokens). */
function tokenWhere(accept: (body: string) => boolean): string {
  for (let i = 0; i < 200; i++) {
    const token = sealer.seal({ pad: 'x'.repeat(i % 3) }, BINDING);
    if (accept(token.slice(STATE_PREFIX.length + 1))) return token;
  }
  throw new Error('no token with the wanted property in 200 tries');
}

/** Node's lenient decoder reads `spelling` as the same bytes: it really is a re-encoding. */
function sameBytesLeniently(original: string, spelling: string): boolean {
  const body = (t: string) => Buffer.from(t.slice(t.indexOf('.') + 1), 'base64url');
  return body(original).equals(body(spelling));
}

describe('re-encodings of a valid token', () => {
  const token = sealer.seal({ step: 'range' }, BINDING);

  it('opens the canonical spelling (the control)', () => {
    expect(sealer.open(token, BINDING).state).toEqual({ step: 'range' });
  });

  it.each([
    ['one padding "="', `${token}=`],
    ['two padding "=="', `${token}==`],
    ['a leading space', ` ${token}`],
    ['a trailing newline', `${token}\n`],
    ['a trailing CRLF', `${token}\r\n`],
    ['a newline inside the body', `${token.slice(0, 40)}\n${token.slice(40)}`],
    ['a space inside the body', `${token.slice(0, 40)} ${token.slice(40)}`],
    ['a tab inside the body', `${token.slice(0, 40)}\t${token.slice(40)}`],
  ])('refuses %s with reason "malformed"', (_label, spelling) => {
    expect(sameBytesLeniently(token, spelling)).toBe(true);
    expectRejected(() => sealer.open(spelling, BINDING), 'malformed');
  });

  it('refuses the standard alphabet ("+" and "/" for "-" and "_") with reason "malformed"', () => {
    const withMinus = tokenWhere((b) => b.includes('-'));
    const plus = withMinus.replaceAll('-', '+');
    expect(sameBytesLeniently(withMinus, plus)).toBe(true);
    expectRejected(() => sealer.open(plus, BINDING), 'malformed');

    const withUnderscore = tokenWhere((b) => b.includes('_'));
    const slash = withUnderscore.replaceAll('_', '/');
    expect(sameBytesLeniently(withUnderscore, slash)).toBe(true);
    expectRejected(() => sealer.open(slash, BINDING), 'malformed');
  });

  it.each([
    ['4 unused bits (length 4n+2)', 2],
    ['2 unused bits (length 4n+3)', 3],
  ])('refuses every non-zero setting of the last character’s %s', (_label, rest) => {
    const valid = tokenWhere((b) => b.length % 4 === rest);
    const unused = rest === 2 ? 0x0f : 0x03;
    const last = ALPHABET.indexOf(valid.at(-1) as string);
    expect(last & unused).toBe(0);
    let variants = 0;
    for (let bits = 1; bits <= unused; bits++) {
      const spelling = valid.slice(0, -1) + ALPHABET[last | bits];
      expect(sameBytesLeniently(valid, spelling)).toBe(true);
      expectRejected(() => sealer.open(spelling, BINDING), 'malformed');
      variants++;
    }
    expect(variants).toBe(unused);
    expect(sealer.open(valid, BINDING).state).toBeDefined();
  });

  it.each([
    ['an uppercase prefix "V1."', (t: string) => `V1${t.slice(2)}`],
    ['another version "v2."', (t: string) => `v2${t.slice(2)}`],
    ['no prefix', (t: string) => t.slice(3)],
    ['a doubled dot', (t: string) => `v1.${t.slice(2)}`],
    ['a doubled prefix', (t: string) => `v1.${t}`],
    ['a colon for the dot', (t: string) => `v1:${t.slice(3)}`],
    ['the handle prefix "h1."', (t: string) => `h1${t.slice(2)}`],
    ['a fullwidth "ｖ1."', (t: string) => `ｖ1${t.slice(2)}`],
  ])('refuses %s with reason "malformed"', (_label, respell) => {
    expectRejected(() => sealer.open(respell(token), BINDING), 'malformed');
  });

  it('refuses a body of impossible length (4n+1 characters)', () => {
    const body = token.slice(3);
    const cut = body.slice(0, body.length - ((body.length + 3) % 4));
    expect(cut.length % 4).toBe(1);
    expectRejected(() => sealer.open(`v1.${cut}`, BINDING), 'malformed');
  });
});

describe('the size limit', () => {
  it('refuses an oversized token with reason "too-large" before decoding it', () => {
    // Not even base64url: a decoder would have said "malformed", so "too-large" proves the order.
    expectRejected(() => sealer.open(`v1.${'!'.repeat(8_190)}`, BINDING), 'too-large');
    expectRejected(() => sealer.open(`v1.${'!'.repeat(8_189)}`, BINDING), 'malformed');
  });

  it('accepts a token exactly at maxTokenBytes and refuses one a character longer', () => {
    const probe = createStateSealer({ keys: KEY_A, audience: 'reports' });
    const token = probe.seal({ big: 'y'.repeat(300) }, BINDING);
    const exact = createStateSealer({
      keys: KEY_A,
      audience: 'reports',
      maxTokenBytes: token.length,
    });
    expect(exact.open(token, BINDING).state).toEqual({ big: 'y'.repeat(300) });
    const smaller = createStateSealer({
      keys: KEY_A,
      audience: 'reports',
      maxTokenBytes: token.length - 1,
    });
    expectRejected(() => smaller.open(token, BINDING), 'too-large');
  });
});

describe('purpose separation', () => {
  it('never opens a state token with the handle purpose’s keys, even under the same prefix', () => {
    const token = sealer.seal({ step: 'range' }, BINDING);
    const stateRing = createKeyRing(KEY_A, 'requestState');
    const handleRing = createKeyRing(KEY_A, 'handle');
    expect(openEnvelope(STATE_PREFIX, stateRing, token).ok).toBe(true);
    // Same secret, same key id, another sub-key: the tag cannot verify.
    expect(openEnvelope(STATE_PREFIX, handleRing, token)).toEqual({ ok: false, reason: 'auth' });
  });

  it('refuses an envelope sealed under the handle purpose’s key as a state', () => {
    const handleRing = createKeyRing(KEY_A, 'handle');
    const forged = sealEnvelope(
      STATE_PREFIX,
      handleRing.primary,
      Buffer.alloc(12, 7),
      Buffer.from('{}'),
    );
    expectRejected(() => sealer.open(forged, BINDING), 'auth');
  });
});

describe('canonical base64url', () => {
  it('round-trips every length from 0 to 64 bytes', () => {
    for (let n = 0; n <= 64; n++) {
      const bytes = Buffer.from(Array.from({ length: n }, (_, i) => (i * 37 + n) & 0xff));
      const text = encodeBase64url(bytes);
      expect(text).toMatch(/^[A-Za-z0-9_-]*$/);
      expect(decodeBase64url(text)?.equals(bytes)).toBe(true);
    }
  });

  it('encodes a view of a larger buffer without leaking the rest of it', () => {
    const whole = Buffer.from('0123456789');
    expect(encodeBase64url(whole.subarray(2, 5))).toBe(Buffer.from('234').toString('base64url'));
  });

  it.each(['AA=', 'AA==', 'A', 'AB', 'AAB', 'A+B/', 'AA A', 'AA\nA', 'ÄAAA', 'AA.A'])(
    'refuses the non-canonical spelling %j',
    (text) => {
      // 'AB' and 'AAB' carry non-zero unused bits; 'A' and 'AA A' have impossible lengths.
      expect(decodeBase64url(text)).toBeUndefined();
    },
  );

  it('accepts the canonical spellings next to them', () => {
    for (const text of ['', 'AA', 'AAA', 'AQ', 'AAE', 'A-B_']) {
      expect(decodeBase64url(text)).toBeInstanceOf(Buffer);
    }
  });
});
