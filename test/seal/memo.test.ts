import { describe, expect, it } from 'vitest';
import { createMemo, MAX_MEMO_KEY } from '../../src/seal/memo.js';

describe('the bounded memo', () => {
  it('computes once per key while the key is remembered', () => {
    const memo = createMemo<number>(4);
    let calls = 0;
    const compute = () => ++calls;
    expect(memo.get('a', compute)).toBe(1);
    expect(memo.get('a', compute)).toBe(1);
    expect(calls).toBe(1);
  });

  it('forgets a key once twice `limit` newer keys have come in, and never sooner than `limit`', () => {
    const memo = createMemo<string>(3);
    const computed: string[] = [];
    const get = (k: string) => memo.get(k, () => (computed.push(k), k.toUpperCase()));
    get('a');
    for (const k of ['b', 'c']) get(k);
    expect(get('a')).toBe('A'); // two newer keys: still remembered
    expect(computed).toEqual(['a', 'b', 'c']);
    for (const k of ['d', 'e', 'f', 'g', 'h', 'i']) get(k);
    expect(get('a')).toBe('A'); // six newer keys: forgotten, computed again
    expect(computed).toEqual(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'a']);
  });

  it('keeps a key that is used again while newer keys come in', () => {
    const memo = createMemo<string>(3);
    let computedX = 0;
    const x = () => memo.get('x', () => (computedX++, 'X'));
    x();
    for (let i = 0; i < 20; i++) {
      memo.get(`k${i}`, () => 'k');
      memo.get(`l${i}`, () => 'l');
      expect(x()).toBe('X');
    }
    expect(computedX).toBe(1);
  });

  it('stays bounded under heavy churn and always answers correctly', () => {
    const memo = createMemo<string>(8);
    for (let i = 0; i < 10_000; i++) {
      const key = `k${i % 37}`;
      expect(memo.get(key, () => key.repeat(2))).toBe(key.repeat(2));
    }
  });

  it('remembers nothing when the computation throws', () => {
    const memo = createMemo<number>(4);
    expect(() =>
      memo.get('x', () => {
        throw new TypeError('no');
      }),
    ).toThrow(TypeError);
    expect(memo.get('x', () => 5)).toBe(5);
  });

  it('never remembers keys longer than its limit', () => {
    const memo = createMemo<number>(4);
    const long = 'l'.repeat(MAX_MEMO_KEY + 1);
    let calls = 0;
    memo.get(long, () => ++calls);
    memo.get(long, () => ++calls);
    expect(calls).toBe(2);
  });
});
