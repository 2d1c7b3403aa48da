/**
 * The canonical digest of arguments and questions, and the memo in front of it: a remembered digest
 * must never answer for another value, whatever was asked before.
 */
import { createHash } from 'node:crypto';
import canonicalize from 'canonicalize';
import { describe, expect, it } from 'vitest';
import { createStateSealer } from '../../src/index.js';
import { createDigester, jsonDigest } from '../../src/seal/digest.js';
import { BINDING, expectRejected, KEY_A } from './helpers.js';

/** The digest the wire format documents, computed without any of the code under test. */
function reference(value: unknown): string {
  const text = canonicalize(value === undefined || value === null ? {} : value) as string;
  return createHash('sha256').update(text).digest('hex');
}

const PLAIN: [string, unknown][] = [
  ['a flat object', { dataset: 'sales', format: 'pdf' }],
  ['the same in another key order', { format: 'pdf', dataset: 'sales' }],
  ['integer-like keys', { '10': 'ten', '2': 'two', b: true }],
  ['scalars of every kind', { s: '', n: -1.5e-7, big: 1e21, t: true, f: false, z: null }],
  ['unicode keys and values', { 'Zoë 🚀': '日本語', '\u0000': '"\\' }],
  ['a nested object', { range: { from: '2026-01', to: '2026-03' }, tags: ['a', 1, null] }],
  ['an array', [1, 'two', { three: 3 }]],
  ['a string', 'just text'],
  ['a number', 42],
  ['an empty object', {}],
  ['absent', undefined],
];

describe('the canonical digest', () => {
  it.each(PLAIN)('is SHA-256 of the RFC 8785 form for %s, remembered or not', (_label, value) => {
    const digest = createDigester();
    expect(jsonDigest(value).toString('hex')).toBe(reference(value));
    expect(digest(value).toString('hex')).toBe(reference(value));
    expect(digest(value).toString('hex')).toBe(reference(value));
  });

  it('writes flat objects canonically straight from their entries, as canonicalizing the JSON would', () => {
    const sixteen = Object.fromEntries(Array.from({ length: 16 }, (_, i) => [`k${15 - i}`, i]));
    const flat: Record<string, unknown>[] = [
      // Code-unit order, not code-point order: the surrogate pair of 🚀 (U+D83D…) sorts before U+FB01.
      { '\uFB01': 1, '🚀': 2, é: 3, e: 4, E: 5, '': 6 },
      { '10': 'ten', '2': 'two', '-1': 'minus one', '1.5': 'a half', b: 'bee' },
      { n: -0, big: 1e21, small: 5e-324, neg: -1.5e-7, max: Number.MAX_SAFE_INTEGER + 2 },
      { quote: '"', backslash: '\\', control: '\u0001\n\t', del: '\u007f', sep: '\u2028' },
      { t: true, f: false, z: null, s: '' },
      sixteen,
      { ...sixteen, k16: 16 },
      Object.assign(Object.create(null) as object, { b: 1, a: 2 }) as Record<string, unknown>,
    ];
    for (const value of flat) {
      const digest = createDigester();
      expect(jsonDigest(value).toString('hex')).toBe(reference(value));
      expect(digest(value).toString('hex')).toBe(reference(value));
      expect(digest({ ...value }).toString('hex')).toBe(reference(value));
    }
  });

  it('refuses a lone surrogate in a flat object key or value, as canonical JSON does', () => {
    for (const bad of [
      { s: '\ud800' },
      { s: 'a\udc00b' },
      { '\udbff': 1 },
      { ok: '🚀', k: '\ud83d' },
    ]) {
      expect(() => jsonDigest(bad)).toThrow(TypeError);
      expect(() => createDigester()(bad)).toThrow(TypeError);
    }
    expect(jsonDigest({ s: '🚀' }).toString('hex')).toBe(reference({ s: '🚀' }));
  });

  it('refuses numbers JSON cannot carry, even right after the same text with null', () => {
    const digest = createDigester();
    digest({ x: null });
    for (const bad of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]) {
      expect(() => digest({ x: bad })).toThrow(TypeError);
      expect(() => digest({ deep: { x: bad } })).toThrow(TypeError);
      expect(() => jsonDigest({ x: bad })).toThrow(TypeError);
    }
  });

  it('refuses values JSON cannot carry with a message that names nothing of them', () => {
    const circular: Record<string, unknown> = { secretKeyName: 1 };
    circular['self'] = circular;
    for (const bad of [circular, 10n, () => 1, { s: '\ud800' }]) {
      const digest = createDigester();
      let error: unknown;
      try {
        digest(bad);
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(TypeError);
      expect(String(error)).not.toContain('secretKeyName');
    }
  });
});

/** Values whose JSON text and structure disagree in the ways JavaScript allows. */
function tricky(): [string, unknown][] {
  const nullProto = Object.assign(Object.create(null) as object, { a: 1 });
  let reads = 0;
  const getter = {
    get a() {
      reads += 1;
      return reads % 2 ? 1 : 2;
    },
  };
  return [
    ['{a:1}', { a: 1 }],
    ['{a:1} with a method', { a: 1, f: () => 1 }],
    ['{a:1} with an undefined field', { a: 1, u: undefined }],
    ['{a:1} without a prototype', nullProto],
    ['{a:2}', { a: 2 }],
    ['{a:"1"}', { a: '1' }],
    ['{a:-0}', { a: -0 }],
    ['{a:0}', { a: 0 }],
    ['a toJSON that writes {a:1}', { toJSON: () => ({ a: 1 }) }],
    ['a prototype toJSON', Object.create({ toJSON: () => ({ a: 2 }) }) as object],
    ['a boxed string', new String('a')],
    ['the string "a"', 'a'],
    ['a getter that alternates', getter],
    ['[1]', [1]],
    ['{0:1}', { 0: 1 }],
  ];
}

describe('the memo in front of the digest', () => {
  it('answers for the value asked, whatever was asked before (every ordered pair)', () => {
    const values = tricky();
    for (const [firstLabel, first] of values) {
      for (const [label, value] of values) {
        const digest = createDigester();
        digest(first);
        const remembered = digest(value).toString('hex');
        // A getter may answer differently per read; compare with what a fresh digester reads now.
        const fresh = createDigester()(value).toString('hex');
        if (label !== 'a getter that alternates') {
          expect({ after: firstLabel, value: label, digest: remembered }).toEqual({
            after: firstLabel,
            value: label,
            digest: fresh,
          });
        }
      }
    }
  });

  it('gives one digest to values that write the same JSON, and another to the rest', () => {
    const digest = createDigester();
    const hex = (v: unknown) => digest(v).toString('hex');
    expect(hex({ a: 1, f: () => 1 })).toBe(hex({ a: 1 }));
    expect(hex({ a: 1, u: undefined })).toBe(hex({ a: 1 }));
    expect(hex({ toJSON: () => ({ a: 1 }) })).toBe(hex({ a: 1 }));
    expect(hex(new String('a'))).toBe(hex('a'));
    expect(hex({ a: -0 })).toBe(hex({ a: 0 }));
    expect(hex({ a: 1 })).not.toBe(hex({ a: '1' }));
    expect(hex([1])).not.toBe(hex({ 0: 1 }));
  });

  it('notices a flat object changed in place since it was last digested', () => {
    const digest = createDigester();
    const args: Record<string, unknown> = { dataset: 'sales', format: 'pdf' };
    const before = digest(args).toString('hex');
    args['dataset'] = 'payroll';
    expect(digest(args).toString('hex')).toBe(reference({ dataset: 'payroll', format: 'pdf' }));
    args['dataset'] = 'sales';
    expect(digest(args).toString('hex')).toBe(before);
    args['extra'] = true;
    expect(digest(args).toString('hex')).toBe(reference({ ...args }));
    delete args['extra'];
    Object.setPrototypeOf(args, { toJSON: () => 'swapped' });
    expect(digest(args).toString('hex')).toBe(reference('swapped'));
  });

  it('stays correct past its limit', () => {
    const digest = createDigester(4);
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 10; i++) {
        expect(digest({ i }).toString('hex')).toBe(reference({ i }));
      }
    }
  });
});

describe('arguments bound into a sealed state', () => {
  it('open for the same JSON whatever the sealer remembered, and for nothing else', () => {
    const sealer = createStateSealer({ keys: KEY_A, audience: 'reports' });
    const twin = createStateSealer({ keys: KEY_A, audience: 'reports' });
    const sealedFor = (args: unknown) => sealer.seal({ step: 1 }, { ...BINDING, args });
    // The sealer has just digested {a:1, f}; the twin has never seen either.
    const token = sealedFor({ a: 1, f: () => 1 });
    for (const opener of [sealer, twin]) {
      expect(opener.open(token, { ...BINDING, args: { a: 1 } }).state).toEqual({ step: 1 });
      expectRejected(() => opener.open(token, { ...BINDING, args: { a: '1' } }), 'request');
    }
    const boxed = sealedFor(new String('x'));
    expect(twin.open(boxed, { ...BINDING, args: 'x' }).state).toEqual({ step: 1 });
    expectRejected(() => sealer.open(boxed, { ...BINDING, args: { 0: 'x' } }), 'request');
  });
});
