/**
 * The echo rule view by view, both sides of each boundary: which encodings of a request carry a
 * marker (case, hex, URL, base64 at each alignment, nested decodings and how deep), what views of an
 * answer are read (URL-decoded, base64 runs, their budget and depth), when an answer repeats a
 * decoded state whole (JSON anywhere, key order, arrays, depth and budget bounds) or names every
 * field of it (`key: value` lines), where JSON sits inside text, and the two helpers built on the
 * rule (attribution against baselines, and a text with the echoed request cut out).
 */
import { describe, expect, it } from 'vitest';
import {
  answerViews,
  attributable,
  base64Cores,
  carries,
  echoAware,
  jsonIn,
  markerCounts,
  stringCarries,
  withoutEcho,
} from '../../src/probe/evidence/echo.js';
import { makeCanary, MAX_TEXT, type Marker } from '../../src/probe/evidence/markers.js';

const canary = makeCanary('view');
const b64 = (s: string): string => Buffer.from(s).toString('base64');
const b64url = (s: string): string => Buffer.from(s).toString('base64url');
const hex = (s: string): string => Buffer.from(s).toString('hex');
const times = (n: number, f: (s: string) => string, s: string): string =>
  n === 0 ? s : times(n - 1, f, f(s));
const RAW = { rawOnlyKeys: ['requestState'] } as const;
const stateOf = (whole: unknown): string => b64url(JSON.stringify(whole));

/** Whether the answer repeats the decoded `requestState` whole (so it is searched decoded too). */
function echoes(answer: unknown, whole: unknown): boolean {
  const opts = echoAware(answer, { requestState: stateOf(whole) }, RAW);
  return opts.rawOnlyKeys?.length === 0;
}

/** `inner` wrapped `n` times by `wrap`. */
function nest(n: number, wrap: (x: unknown) => unknown, inner: unknown): unknown {
  let v = inner;
  for (let i = 0; i < n; i++) v = wrap(v);
  return v;
}
const inArray = (x: unknown): unknown => [x];
const inObject = (x: unknown): unknown => ({ k: x });

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

  it('in any item of an array, and an array under a raw-only key stays raw-only', () => {
    expect(carries({ list: ['a', 'b', `x${canary}`] }, canary)).toBe(true);
    const state = b64url(JSON.stringify({ who: canary }));
    expect(carries({ requestState: [state] }, canary, RAW)).toBe(false);
    expect(carries({ requestState: [state] }, canary)).toBe(true);
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

describe('the views of an answer', () => {
  it('are the answer, its URL-decoded strings (+ read as a space) and nothing else for plain text', () => {
    expect(answerViews(['a%20b+c', 'a+b', 'plain'])).toEqual([
      ['a%20b+c', 'a+b', 'plain'],
      'a b c',
    ]);
    expect(answerViews({ k: 'a%20b', n: null, x: 5 })).toEqual([
      { k: 'a%20b', n: null, x: 5 },
      'a b',
    ]);
    expect(answerViews('100% sure')).toEqual(['100% sure']);
    expect(answerViews([undefined, 'a%20b', true])).toEqual([[undefined, 'a%20b', true], 'a b']);
  });

  it('include base64 and base64url runs of 16 characters or more that decode to printable text', () => {
    const url = b64url('>>>???>>>???');
    expect(url).toBe('Pj4-Pz8_Pj4-Pz8_');
    expect(answerViews(`trace=${url} done`)).toEqual([`trace=${url} done`, '>>>???>>>???']);
    expect(answerViews(`t ${b64('hello world!')}`)).toEqual([
      `t ${b64('hello world!')}`,
      'hello world!',
    ]);
    expect(answerViews(`t ${b64('hello world!').slice(0, 15)}`)).toHaveLength(1);
    expect(answerViews(`t ${b64('line one\nline two')}`)).toContain('line one\nline two');
  });

  it('leave out a run that decodes to anything unprintable, first or last byte included', () => {
    for (const text of ['\u0001printable text', 'printable text\u0001', '\u00ff\u00fe\u00fd\u00fc'])
      expect(answerViews(`t ${Buffer.from(text, 'latin1').toString('base64')}`)).toHaveLength(1);
  });

  it('read strings 16 levels deep, not 17 (arrays and objects alike)', () => {
    for (const wrap of [inArray, inObject]) {
      expect(answerViews(nest(16, wrap, 'a%20b'))).toContain('a b');
      expect(answerViews(nest(17, wrap, 'a%20b'))).toHaveLength(1);
    }
  });

  it('stop at 64 decoded views', () => {
    const urls = Array.from({ length: 70 }, (_, i) => `n%20${i}`);
    expect(answerViews(urls)).toHaveLength(65);
    const runs = Array.from({ length: 70 }, (_, i) => b64(`printable text ${i}`)).join(' ');
    expect(answerViews(runs)).toHaveLength(65);
  });
});

describe('JSON written inside text', () => {
  it('skips brackets, braces, quotes and escaped quotes inside strings', () => {
    expect(jsonIn('x {"q":"say \\"}\\" ok","k":"a]b}c{"} y')).toEqual([
      { q: 'say "}" ok', k: 'a]b}c{' },
    ]);
  });

  it('finds nothing where a bracket never closes', () => {
    expect(jsonIn('{"a": [1, 2')).toEqual([]);
  });

  it('tries at most maxStarts brackets, and prose does not use them up', () => {
    expect(jsonIn('[x] [y] {"a":1}', 2)).toEqual([]);
    expect(jsonIn('[x] [y] {"a":1}', 3)).toEqual([{ a: 1 }]);
    expect(jsonIn(`${'prose '.repeat(40)}{"a":1} and [2]`)).toEqual([{ a: 1 }, [2]]);
  });

  it('reads the first MAX_TEXT characters of a text only', () => {
    expect(jsonIn(`${' '.repeat(MAX_TEXT - 7)}{"a":1}`)).toEqual([{ a: 1 }]);
    expect(jsonIn(`${' '.repeat(MAX_TEXT - 6)}{"a":1}`)).toEqual([]);
  });
});

describe('an answer repeats a decoded state whole', () => {
  // Short keys and one string: too few tokens to be "named" (below), so only structure decides.
  const whole = { c: canary, n: [1, { x: 2 }], o: { a: 1, b: 2 } };

  it('as an object at any depth, whatever the key order, with more fields beside it', () => {
    expect(echoes({ s: { o: { b: 2, a: 1 }, n: [1, { x: 2 }], c: canary, extra: 5 } }, whole)).toBe(
      true,
    );
    expect(echoes([0, { t: [null, whole] }], whole)).toBe(true);
  });

  it('not when a field differs, is missing, or a nested value has more or fewer parts', () => {
    for (const other of [
      { ...whole, c: 'other' },
      { c: canary, n: [1, { x: 2 }] },
      { ...whole, n: [1] },
      { ...whole, n: [1, { x: 3 }] },
      { ...whole, n: [1, { x: 2 }, 3] },
      { ...whole, o: { a: 1, b: 2, z: 2 } },
      { ...whole, o: { a: 1 } },
      { ...whole, o: { a: 2, b: 2 } },
      { ...whole, o: { a: 1, b: 3 } },
      { ...whole, o: {} },
      { ...whole, o: [1] },
      { ...whole, o: 1 },
      { ...whole, o: null },
    ])
      expect(echoes({ s: other }, whole)).toBe(false);
  });

  it('compares values by type: an array is not the string of its items, a number not an object', () => {
    expect(echoes({ c: canary, v: 'xy' }, { c: canary, v: ['x', 'y'] })).toBe(false);
    expect(echoes({ c: canary, v: ['x', 'y'] }, { c: canary, v: 'xy' })).toBe(false);
    expect(echoes({ c: canary, v: 2 }, { c: canary, v: 1 })).toBe(false);
    expect(echoes({ c: canary, v: {} }, { c: canary, v: 1 })).toBe(false);
    expect(echoes({ c: canary, v: 1 }, { c: canary, v: 1 })).toBe(true);
  });

  it('never for an empty state, and not from numbers or nulls beside it', () => {
    // '{}' as sent: a JSON state (base64 of it would be too short to be read as a blob).
    expect(echoAware({ x: {}, n: 5, z: null }, { requestState: '{}' }, RAW)).toEqual(RAW);
    expect(echoes({ n: 5, z: null }, { c: canary })).toBe(false);
  });

  it('as JSON text in a string, among other JSON values, or only in a decoded view', () => {
    expect(echoes(`[1] then ${JSON.stringify(whole)}`, whole)).toBe(true);
    expect(echoes({ t: `trace=${b64url(JSON.stringify(whole))}` }, whole)).toBe(true);
    expect(echoes({ t: `trace=${b64url(JSON.stringify({ ...whole, c: 'x' }))}` }, whole)).toBe(
      false,
    );
  });

  it('compares nested values 32 levels deep, not 33 (arrays and objects alike)', () => {
    for (const wrap of [inArray, inObject]) {
      // The state's value `d` is level 0 of the comparison, its innermost 1 level 32 or 33.
      const deep = { c: canary, d: nest(32, wrap, 1) };
      const deeper = { c: canary, d: nest(33, wrap, 1) };
      expect(echoes({ s: deep }, deep)).toBe(true);
      expect(echoes({ s: deeper }, deeper)).toBe(false);
    }
  });

  it('finds it 32 levels down the answer, not 33, whatever it crosses (arrays, objects, JSON text)', () => {
    const small = { c: canary };
    for (const wrap of [inArray, inObject]) {
      expect(echoes(nest(32, wrap, small), small)).toBe(true);
      expect(echoes(nest(33, wrap, small), small)).toBe(false);
    }
    expect(echoes(nest(31, inObject, JSON.stringify(small)), small)).toBe(true);
    expect(echoes(nest(32, inObject, JSON.stringify(small)), small)).toBe(false);
  });

  it('within a budget of 10 000 values searched', () => {
    const small = { c: canary };
    expect(echoes({ a: Array(9997).fill(0), z: small }, small)).toBe(true);
    expect(echoes({ a: Array(9998).fill(0), z: small }, small)).toBe(false);
  });

  it('in a text of up to MAX_TEXT characters, not a longer one', () => {
    const small = { c: canary };
    const json = JSON.stringify(small);
    expect(echoes(json + ' '.repeat(MAX_TEXT - json.length), small)).toBe(true);
    expect(echoes(json + ' '.repeat(MAX_TEXT - json.length + 1), small)).toBe(false);
  });
});

describe('an answer names every field of a decoded state', () => {
  const whole = { principal: canary, workspace: 'ws-77', step: 'confirm' };

  it('as key: value lines, but not when one key or one value is missing', () => {
    const lines = `principal: ${canary}\nworkspace: ws-77\nstep: confirm`;
    expect(echoes(lines, whole)).toBe(true);
    expect(echoes(lines.replace('ws-77', 'ws-78'), whole)).toBe(false);
    expect(echoes(lines.replace('step', 'stage'), whole)).toBe(false);
  });

  it('with at least three tokens, not two', () => {
    expect(echoes('owner alice-token', { owner: 'alice-token' })).toBe(false);
    expect(echoes('owner alice-token role', { owner: 'alice-token', role: 7 })).toBe(true);
  });

  it('with a null field among them', () => {
    expect(echoes(`principal ${canary} workspace step`, { ...whole, workspace: null })).toBe(false);
    expect(
      echoes(`principal ${canary} workspace step confirm`, { ...whole, workspace: null }),
    ).toBe(true);
  });

  it('down to 8 levels of the state, not below', () => {
    const names = ['alpha', 'bravo', 'charlie', 'delta', 'echoes', 'foxtrot', 'golf', 'hotel'];
    const deep = ['india', 'juliet'];
    let state: unknown = 'leafword';
    for (const k of [...names, ...deep].reverse()) state = { [k]: state };
    // alpha … hotel sit at levels 0–7, india at 8, juliet at 9, the leaf below it.
    expect(echoes([...names, 'india'].join(' '), state)).toBe(true);
    expect(echoes(names.join(' '), state)).toBe(false);
  });
});

describe('echoAware', () => {
  it('drops only the raw-only key whose state the answer repeats', () => {
    const echoedState = { c: canary, n: 1 };
    const request = { requestState: stateOf(echoedState), other: stateOf({ d: 'x', m: 2 }) };
    const opts = { rawOnlyKeys: ['requestState', 'other'] };
    expect(echoAware({ s: echoedState }, request, opts)).toEqual({ rawOnlyKeys: ['other'] });
    expect(echoAware({ s: 'nothing' }, request, opts)).toEqual(opts);
  });

  it('reads a raw-only value that is no blob, or no string, as not echoed, and skips nulls', () => {
    const request = { requestState: 'not-a-blob', list: [null], n: null };
    expect(echoAware({ s: 'not-a-blob' }, request, RAW)).toEqual(RAW);
    expect(echoAware({ s: {} }, { requestState: { nested: 'x' } }, RAW)).toEqual(RAW);
    // A request built in code may hold an undefined optional argument.
    const small = { c: canary, n: 1 };
    expect(
      echoAware({ s: small }, { requestState: stateOf(small), limit: undefined }, RAW),
    ).toEqual({ rawOnlyKeys: [] });
  });

  it('looks for raw-only keys 32 levels into the request, not 33', () => {
    const small = { c: canary, n: 1 };
    const at = (n: number) => nest(n - 1, inObject, { requestState: stateOf(small) });
    expect(echoAware({ s: small }, at(32), RAW)).toEqual({ rawOnlyKeys: [] });
    expect(echoAware({ s: small }, at(33), RAW)).toEqual(RAW);
  });

  it('so a marker the state named counts, and stops counting once the answer repeats the state', () => {
    const state = { c: canary, n: 1 };
    const request = { requestState: stateOf(state) };
    expect(markerCounts(canary, { text: `acting as ${canary}` }, request, RAW)).toBe(true);
    expect(markerCounts(canary, { text: `acting as ${canary}`, s: state }, request, RAW)).toBe(
      false,
    );
  });
});

describe('attribution against baselines', () => {
  const token = (value: string): Marker => ({ value, kind: 'token' });
  const canaryMarker: Marker = { value: canary, kind: 'canary' };

  it('counts markers shown and not carried, and attributes those no baseline shows', () => {
    const answer = { text: `owner alice-token ${canary} team-blue` };
    const request = { id: 'team-blue' };
    const markers = [canaryMarker, token('alice-token'), token('team-blue'), token(''), token('x')];
    const result = attributable(markers, answer, request, [{ feed: 'alice-token' }]);
    expect(result.counted).toEqual([canaryMarker, token('alice-token')]);
    expect(result.attributed).toEqual([canaryMarker]);
    expect(attributable(markers, answer, request, [])).toEqual({
      counted: [canaryMarker, token('alice-token')],
      attributed: [canaryMarker, token('alice-token')],
    });
    expect(attributable(markers, answer, request, [{}, { text: canary }]).attributed).toEqual([
      token('alice-token'),
    ]);
  });

  it('follows an echoed state: what only the repeated state shows is carried', () => {
    const state = { c: canary, n: 1 };
    const request = { requestState: stateOf(state) };
    const acted = { text: `acting as ${canary}` };
    expect(attributable([canaryMarker], acted, request, [], RAW).counted).toEqual([canaryMarker]);
    expect(attributable([canaryMarker], { ...acted, s: state }, request, [], RAW).counted).toEqual(
      [],
    );
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
