/**
 * Where a value may be carried, encoding by encoding and both sides of each boundary: which
 * encodings of a string or a request carry a marker (case, hex, URL, base64 at each alignment,
 * nested decodings and how deep), the tokens that tell identities apart, and a text with the
 * request it repeats cut out.
 */
import { describe, expect, it } from 'vitest';
import { distinctTokens, makeCanary, tokensOf } from '../../src/probe/evidence/markers.js';
import {
  base64Cores,
  carries,
  stringCarries,
  withoutEcho,
} from '../../src/probe/evidence/encodings.js';

const canary = makeCanary('test');
const b64 = (s: string): string => Buffer.from(s).toString('base64');
const b64url = (s: string): string => Buffer.from(s).toString('base64url');
const hex = (s: string): string => Buffer.from(s).toString('hex');
const times = (n: number, f: (s: string) => string, s: string): string =>
  n === 0 ? s : times(n - 1, f, f(s));

/** `inner` wrapped `n` times by `wrap`. */
function nest(n: number, wrap: (x: unknown) => unknown, inner: unknown): unknown {
  let v = inner;
  for (let i = 0; i < n; i++) v = wrap(v);
  return v;
}
const inArray = (x: unknown): unknown => [x];
const inObject = (x: unknown): unknown => ({ k: x });

describe('canaries', () => {
  it('are fresh, tagged and made of characters no encoding step alters', () => {
    const other = makeCanary('test');
    expect(canary).not.toBe(other);
    expect(canary).toMatch(/^sg-test-[0-9a-f]{24}$/);
    expect(encodeURIComponent(canary)).toBe(canary);
  });
});

describe('a request carries a marker, whatever wraps it', () => {
  const embedded = (prefix: string) => `${prefix}${canary}-suffix`;

  it('raw, anywhere in any string or key', () => {
    expect(carries({ arguments: { label: `x ${canary} y` } }, canary)).toBe(true);
    expect(carries({ [canary]: 1 }, canary)).toBe(true);
  });

  it.each([0, 1, 2, 3, 4])('inside base64 and base64url at byte offset %i', (offset) => {
    const plain = embedded('p'.repeat(offset));
    const b64 = Buffer.from(JSON.stringify({ label: plain })).toString('base64');
    const b64url = Buffer.from(JSON.stringify({ label: plain })).toString('base64url');
    expect(carries({ workspace_id: b64 }, canary)).toBe(true);
    expect(carries({ workspace_id: `ws.${b64url}.sig` }, canary)).toBe(true);
  });

  it('hex-encoded, URL-encoded, and base64 nested in URL encoding', () => {
    expect(carries({ h: Buffer.from(embedded('z')).toString('hex') }, canary)).toBe(true);
    const marker = 'alice smith/ü';
    expect(carries({ u: `https://x.invalid/?who=${encodeURIComponent(marker)}` }, marker)).toBe(
      true,
    );
    const inner = encodeURIComponent(Buffer.from(embedded('')).toString('base64'));
    expect(carries({ u: inner }, canary)).toBe(true);
  });

  it('not when the request holds only unrelated values', () => {
    expect(carries({ workspace_id: 'ws-0123456789abcdef', label: makeCanary('x') }, canary)).toBe(
      false,
    );
  });

  it('has base64 cores for all three alignments', () => {
    expect(base64Cores(canary)).toHaveLength(3);
  });
});

describe('tokens that tell identities apart', () => {
  it('keep what both A records say and B never does, and drop clocks, handles and canaries', () => {
    const a1 = { owner: 'alice-token', at: '2026-08-01T10:00:00Z', id: 'ws-1', label: canary };
    const b = { owner: 'bob-token', at: '2026-08-01T10:00:01Z', id: 'ws-2', label: 'other' };
    const a2 = { owner: 'alice-token', at: '2026-08-01T10:00:02Z', id: 'ws-3', label: 'x' };
    expect(distinctTokens([a1, a2], [b], ['ws-1', 'ws-3', canary])).toEqual(['alice-token']);
  });

  it('find nothing when both identities are answered alike', () => {
    const rec = (n: number) => ({ owner: 'anonymous', nonce: `n${n}x${n}` });
    expect(distinctTokens([rec(1), rec(3)], [rec(2)], [])).toEqual([]);
  });

  it('are matched whole', () => {
    expect(tokensOf({ text: 'exported x as principal alice-token.' }).has('alice-token')).toBe(
      true,
    );
    expect(tokensOf({ owner: 'alice-tokenX' }).has('alice-token')).toBe(false);
  });
});

describe('base64 cores', () => {
  it('are the characters of the marker that no neighbouring byte changes, at each alignment', () => {
    expect(base64Cores('abcdef')).toEqual(['YWJjZGVm', 'FiY2RlZ', 'hYmNkZW']);
    expect(base64Cores('abcde')).toEqual(['YWJjZG', 'FiY2Rl', 'hYmNkZ']);
    expect(base64Cores('abcd')).toEqual(['YWJjZ', 'FiY2', 'hYmNk']);
    // Shorter than four characters, a core would match by chance: 'abc' keeps only its aligned one.
    expect(base64Cores('abc')).toEqual(['YWJj']);
  });

  it('each core occurs in the base64 of any text holding the marker at its alignment', () => {
    const marker = 'sg-x-0123abcd';
    const cores = base64Cores(marker);
    for (let before = 0; before < 6; before++) {
      const blob = b64(`${'p'.repeat(before)}${marker}${'q'.repeat(before % 4)}`);
      expect(cores.some((c) => blob.includes(c))).toBe(true);
      expect(blob.includes(cores[before % 3]!)).toBe(true);
    }
  });
});

describe('one string carries a marker', () => {
  it('never an empty marker', () => {
    expect(stringCarries('anything', '')).toBe(false);
  });

  it('verbatim, whatever lower-casing does to it (a final sigma)', () => {
    expect('AΣ'.toLowerCase().includes('Σ'.toLowerCase())).toBe(false);
    expect(stringCarries('AΣ', 'Σ', 0)).toBe(true);
  });

  it('in any letter case, the marker or the text upper-cased', () => {
    expect(stringCarries('id SG-TEST-ABC1', 'sg-test-abc1', 0)).toBe(true);
    expect(stringCarries('id sg-test-abc1', 'SG-TEST-ABC1', 0)).toBe(true);
  });

  it('hex-encoded in either case, with no decoding', () => {
    expect(stringCarries(`x=${hex('sg-hex-1')}`, 'sg-hex-1', 0)).toBe(true);
    expect(stringCarries(`x=${hex('sg-hex-1').toUpperCase()}`, 'sg-hex-1', 0)).toBe(true);
  });

  it('URL-encoded, with no decoding; a marker URL encoding leaves alone is not "found" by it', () => {
    const marker = 'a b/ü';
    expect(stringCarries(`q=${encodeURIComponent(marker)}`, marker, 0)).toBe(true);
    expect(stringCarries('nothing of it here', 'plainmarker', 0)).toBe(false);
    expect(stringCarries('nothing of it here', marker, 0)).toBe(false);
  });

  it('in base64 and base64url at each alignment, with no decoding', () => {
    const marker = '>>>???~~~';
    for (const before of ['', 'x', 'xy']) {
      expect(stringCarries(b64(before + marker), marker, 0)).toBe(true);
      expect(stringCarries(b64url(before + marker), marker, 0)).toBe(true);
    }
  });

  it('base64 of base64 only once decoded: at depth 1, not 0', () => {
    for (const before of ['', 'x', 'xy']) {
      const twice = times(2, b64, before + canary);
      expect(stringCarries(twice, canary, 0)).toBe(false);
      expect(stringCarries(twice, canary, 1)).toBe(true);
      const twiceUrl = b64url(b64url(before + canary));
      expect(stringCarries(twiceUrl, canary, 0)).toBe(false);
      expect(stringCarries(twiceUrl, canary, 1)).toBe(true);
    }
  });

  it('inside a dotted, colon, tilde or spaced segment, once decoded', () => {
    const twice = times(2, b64, `ab${canary}`);
    for (const s of [`v1.${twice}.sig`, `k:${twice}`, `a~${twice}`, `trace ${twice} end`])
      expect(stringCarries(s, canary, 1)).toBe(true);
  });

  it('not in a segment with other characters around it: that is no base64 value', () => {
    const twice = times(2, b64, `ab${canary}`);
    expect(stringCarries(`!${twice}`, canary, 1)).toBe(false);
    expect(stringCarries(`${twice}!`, canary, 1)).toBe(false);
  });

  it('hex of base64 once decoded; an odd-length hex run is not hex', () => {
    const hexed = hex(b64(`ab${canary}`));
    expect(stringCarries(hexed, canary, 0)).toBe(false);
    expect(stringCarries(hexed, canary, 1)).toBe(true);
    expect(stringCarries(`${hexed}0`, canary, 1)).toBe(false);
  });

  it('in a base64url segment of binary bytes (with - and _), once decoded', () => {
    const marker = 'sg-hexmark-01';
    const bytes = Buffer.concat([
      Buffer.from([0xfb, 0xff]),
      Buffer.from(hex(marker)),
      Buffer.from([0xfb, 0xff, 0xfe]),
    ]);
    const segment = bytes.toString('base64url');
    expect(segment).toMatch(/-.*_/);
    expect(stringCarries(segment, marker, 0)).toBe(false);
    expect(stringCarries(segment, marker, 1)).toBe(true);
  });

  it('percent-encoded character by character, once decoded', () => {
    const all = [...Buffer.from('sg-abcd')].map((b) => `%${b.toString(16)}`).join('');
    expect(stringCarries(all, 'sg-abcd', 0)).toBe(false);
    expect(stringCarries(all, 'sg-abcd', 1)).toBe(true);
  });

  it('three encodings deep by default, not four', () => {
    expect(carries({ x: times(3, b64, `ab${canary}`) }, canary)).toBe(true);
    expect(carries({ x: times(4, b64, `ab${canary}`) }, canary)).toBe(false);
  });

  it('not a word a decoding never held', () => {
    expect(stringCarries('plain words only', 'here', 2)).toBe(false);
  });
});

describe('a request carries a marker', () => {
  it('as a number or a boolean only when it is that value exactly', () => {
    expect(carries({ n: 12345 }, '12345')).toBe(true);
    expect(carries({ n: 12345 }, '1234')).toBe(false);
    expect(carries({ ok: true }, 'true')).toBe(true);
    expect(carries({ ok: false }, 'true')).toBe(false);
  });

  it('in any item of an array, encoded or not', () => {
    expect(carries({ list: ['a', 'b', `x${canary}`] }, canary)).toBe(true);
    expect(carries({ requestState: [b64url(JSON.stringify({ who: canary }))] }, canary)).toBe(true);
  });

  it('never in null, undefined or other values with no text', () => {
    expect(carries({ a: null, b: undefined, c: [null] }, canary)).toBe(false);
    expect(carries({ a: null, b: undefined }, 'undefined')).toBe(false);
  });

  it('down to 32 levels of nesting, not below (arrays and objects alike)', () => {
    for (const wrap of [inArray, inObject]) {
      expect(carries(nest(32, wrap, canary), canary)).toBe(true);
      expect(carries(nest(33, wrap, canary), canary)).toBe(false);
    }
  });
});

describe('a text without the echoed request', () => {
  it('cuts out each carried token of 8 characters or more, longest first', () => {
    const request = { q: 'abcdefghijkl', short: 'abcdefg' };
    expect(withoutEcho('abcdefgh then abcdefghij then abcdefghijkl, abcdefg', request)).toBe(
      '… then … then …, abcdefg',
    );
    expect(withoutEcho('abcdefg kept', request, 7)).toBe('… kept');
    expect(withoutEcho('nothing carried here', request)).toBe('nothing carried here');
  });
});
