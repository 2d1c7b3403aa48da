/**
 * Cryptographically secure random bytes, drawn from a pool filled in bulk.
 *
 * Every seal needs 28 fresh random bytes (a token id and an IV). One `randomFillSync` call costs a
 * few microseconds whatever its size, which was the largest single cost of a seal. Filling 4 KiB at
 * a time (as Node does for `randomUUID`) keeps the same CSPRNG and the same guarantees: each byte is
 * handed out once, a spent pool is replaced by a fresh buffer rather than refilled in place (so bytes
 * already handed out never change under their holder), and the pool never leaves this module.
 */
import { randomFillSync } from 'node:crypto';

const POOL_BYTES = 4096;

/** A source of `n` fresh random bytes per call. */
export type RandomSource = (n: number) => Buffer;

/** Create a pooled random source. Requests larger than the pool bypass it. */
export function createRandomPool(poolBytes: number = POOL_BYTES): RandomSource {
  let pool = Buffer.alloc(0);
  let offset = 0;
  return (n) => {
    // Stryker disable next-line ConditionalExpression,EqualityOperator: when the pool is used or refilled decides the cost, not the bytes: every byte still comes from randomFillSync and is handed out once.
    if (n > poolBytes) return randomFillSync(Buffer.allocUnsafe(n));
    // Stryker disable next-line ConditionalExpression,EqualityOperator: when the pool is used or refilled decides the cost, not the bytes: every byte still comes from randomFillSync and is handed out once.
    if (offset + n > pool.length) {
      pool = randomFillSync(Buffer.allocUnsafe(poolBytes));
      offset = 0;
    }
    const out = pool.subarray(offset, offset + n);
    offset += n;
    return out;
  };
}
