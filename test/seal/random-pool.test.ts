import { describe, expect, it } from 'vitest';
import { createRandomPool } from '../../src/seal/random-pool.js';

describe('the pooled random source', () => {
  it('hands out exactly the number of bytes asked for', () => {
    const draw = createRandomPool(64);
    for (const n of [0, 1, 12, 28, 64, 65, 1_000]) expect(draw(n)).toHaveLength(n);
  });

  it('never hands out the same bytes twice, across many refills', () => {
    const draw = createRandomPool(64);
    const seen = new Set<string>();
    for (let i = 0; i < 2_000; i++) seen.add(draw(28).toString('hex'));
    expect(seen.size).toBe(2_000);
  });

  it('leaves bytes already handed out untouched when the pool is refilled', () => {
    const draw = createRandomPool(64);
    const first = draw(28);
    const copy = Buffer.from(first);
    for (let i = 0; i < 50; i++) draw(28);
    expect(first.equals(copy)).toBe(true);
  });

  it('produces bytes that look uniform (every value appears in 64 KiB)', () => {
    const draw = createRandomPool();
    const counts = new Array<number>(256).fill(0);
    for (let i = 0; i < 2_048; i++) for (const b of draw(32)) counts[b] = (counts[b] as number) + 1;
    // Expected 256 per value; a stuck or biased source would leave values out or pile them up.
    expect(Math.min(...counts)).toBeGreaterThan(150);
    expect(Math.max(...counts)).toBeLessThan(380);
  });
});
