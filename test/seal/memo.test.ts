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

  it('forgets the oldest key first, and only once it holds `limit` keys', () => {
    const memo = createMemo<string>(3);
    const computed: string[] = [];
    const get = (k: string) => memo.get(k, () => (computed.push(k), k.toUpperCase()));
    for (const k of ['a', 'b', 'c']) get(k);
    for (const k of ['a', 'b', 'c']) expect(get(k)).toBe(k.toUpperCase());
    expect(computed).toEqual(['a', 'b', 'c']);
    get('d'); // evicts 'a'
    get('b');
    get('a'); // recomputed, evicts 'b'
    get('b'); // recomputed
    expect(computed).toEqual(['a', 'b', 'c', 'd', 'a', 'b']);
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
