/**
 * What a JavaScript caller sees when it misuses a ledger: a `TypeError` or `RangeError` with a clear
 * message that names the bad value's type or length (never its content), at the exact bounds the
 * docs give. No Redis is needed: the Redis ledger checks its options before it connects (lazily).
 */
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { createMemoryLedger } from '../../src/index.js';
import { MAX_TTL_MS } from '../../src/ledger/check.js';
import { createRedisConnection } from '../../src/ledger/redis-client.js';
import { createRedisLedger } from '../../src/redis.js';

const newId = (): string => randomBytes(16).toString('base64url');
const MINUTE = 60_000;
/** A URL nothing listens on; the lazy client never dials it in these tests. */
const NOWHERE = 'redis://127.0.0.1:1';

describe('consume arguments', () => {
  const ledger = createMemoryLedger();
  const idError = (got: string) =>
    new TypeError(`id must be a string of 1-256 characters, got ${got}`);
  const ttlError = (got: string) =>
    new TypeError(`ttlMs must be a lifetime of 1 ms to 366 days, got ${got}`);
  const ageError = (got: string) =>
    new TypeError(`issuedAgoMs must be an age within 366 days, got ${got}`);

  it('takes ids of 1 to 256 characters and names the type or length of any other', async () => {
    expect(await ledger.consume('x', MINUTE)).toBe(true);
    expect(await ledger.consume('y'.repeat(256), MINUTE)).toBe(true);
    await expect(ledger.consume('', MINUTE)).rejects.toThrow(idError('length 0'));
    await expect(ledger.consume('z'.repeat(257), MINUTE)).rejects.toThrow(idError('length 257'));
    await expect(ledger.consume(42 as unknown as string, MINUTE)).rejects.toThrow(
      idError('number'),
    );
  });

  it('takes lifetimes up to 366 days and refuses longer ones, or non-numbers, by kind', async () => {
    expect(MAX_TTL_MS).toBe(31_622_400_000);
    expect(await ledger.consume(newId(), MAX_TTL_MS)).toBe(true);
    await expect(ledger.consume(newId(), MAX_TTL_MS + 1)).rejects.toThrow(
      ttlError('a number out of range'),
    );
    await expect(ledger.consume(newId(), Number.POSITIVE_INFINITY)).rejects.toThrow(
      ttlError('a number out of range'),
    );
    await expect(ledger.consume(newId(), '60000' as unknown as number)).rejects.toThrow(
      ttlError('string'),
    );
  });

  it('takes ages within 366 days either way and refuses anything else, by kind', async () => {
    expect(await ledger.consume(newId(), MINUTE, MAX_TTL_MS)).toBe(true);
    expect(await ledger.consume(newId(), MINUTE, -MAX_TTL_MS)).toBe(true);
    for (const age of [MAX_TTL_MS + 1, -MAX_TTL_MS - 1, Number.NaN, Number.NEGATIVE_INFINITY]) {
      await expect(ledger.consume(newId(), MINUTE, age)).rejects.toThrow(
        ageError('a number out of range'),
      );
    }
    await expect(ledger.consume(newId(), MINUTE, '5' as unknown as number)).rejects.toThrow(
      ageError('string'),
    );
  });

  it('checks the id before the reserved epoch id of the Redis ledger, which it names', async () => {
    const redis = createRedisLedger({ url: NOWHERE });
    await expect(redis.consume('epoch', MINUTE, 0)).rejects.toThrow(
      new TypeError('id "epoch" is reserved'),
    );
    await expect(redis.consume('', MINUTE, 0)).rejects.toThrow(idError('length 0'));
  });
});

describe('ledger options', () => {
  const skewError = (got: string) =>
    new RangeError(`clockSkewMs must be a non-negative finite number, got ${got}`);

  it.each([
    ['memory', (clockSkewMs: unknown) => createMemoryLedger({ clockSkewMs } as never)],
    ['Redis', (clockSkewMs: unknown) => createRedisLedger({ url: NOWHERE, clockSkewMs } as never)],
  ])('%s: takes a skew of 0 and refuses a negative, infinite or non-number one', (_, make) => {
    expect(() => make(0)).not.toThrow();
    expect(() => make(-1)).toThrow(skewError('number'));
    expect(() => make(Number.NaN)).toThrow(skewError('number'));
    expect(() => make(Number.POSITIVE_INFINITY)).toThrow(skewError('number'));
    expect(() => make('60000')).toThrow(skewError('string'));
  });

  it('memory: refuses a bound on entries that is not a positive integer', () => {
    const error = (got: string) =>
      new RangeError(`maxEntries must be a positive integer, got ${got}`);
    expect(() => createMemoryLedger({ maxEntries: 1 })).not.toThrow();
    for (const maxEntries of [0, -1, 1.5, Number.NaN]) {
      expect(() => createMemoryLedger({ maxEntries })).toThrow(error('number'));
    }
    expect(() => createMemoryLedger({ maxEntries: '5' as unknown as number })).toThrow(
      error('string'),
    );
  });

  it('Redis: takes key prefixes of 1 to 128 characters and names the type of any other', () => {
    const error = (got: string) =>
      new TypeError(`prefix must be a string of 1-128 characters, got ${got}`);
    expect(() => createRedisLedger({ url: NOWHERE, prefix: 'p' })).not.toThrow();
    expect(() => createRedisLedger({ url: NOWHERE, prefix: 'p'.repeat(128) })).not.toThrow();
    expect(() => createRedisLedger({ url: NOWHERE, prefix: 'p'.repeat(129) })).toThrow(
      error('string'),
    );
    expect(() => createRedisLedger({ url: NOWHERE, prefix: '' })).toThrow(error('string'));
    expect(() => createRedisLedger({ url: NOWHERE, prefix: 7 as unknown as string })).toThrow(
      error('number'),
    );
  });

  it('Redis: takes a positive timeout and refuses any other', () => {
    const error = (got: string) =>
      new RangeError(`timeoutMs must be a positive finite number, got ${got}`);
    expect(() => createRedisLedger({ url: NOWHERE, timeoutMs: 1 })).not.toThrow();
    for (const timeoutMs of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => createRedisLedger({ url: NOWHERE, timeoutMs })).toThrow(error('number'));
    }
    expect(() =>
      createRedisLedger({ url: NOWHERE, timeoutMs: '500' as unknown as number }),
    ).toThrow(error('string'));
  });

  it('Redis: needs exactly one of a client or a URL', () => {
    const error = new TypeError('pass exactly one of client or url');
    expect(() => createRedisLedger({})).toThrow(error);
    const client = { status: 'ready', call: async () => null } as unknown as Redis;
    expect(() => createRedisLedger({ client, url: NOWHERE })).toThrow(error);
  });

  it('Redis: takes only a redis:// or rediss:// URL string, and never echoes it', () => {
    const error = (got: string) =>
      new TypeError(`url must be a redis:// or rediss:// URL, got ${got}`);
    expect(() => createRedisLedger({ url: 'rediss://127.0.0.1:1' })).not.toThrow();
    // Only at the start: a URL that merely mentions redis:// elsewhere is another scheme.
    expect(() => createRedisLedger({ url: 'http://user:hunter2@host/?redis://' })).toThrow(
      error('string'),
    );
    // A URL object prints as a redis:// URL, but is not the string the option takes.
    expect(() =>
      createRedisLedger({ url: new URL('redis://127.0.0.1:1') as unknown as string }),
    ).toThrow(error('object'));
  });

  it('refuses missing connection options', () => {
    expect(() => createRedisConnection(null as never)).toThrow(
      new TypeError('options are required'),
    );
    expect(() => createRedisConnection('redis://127.0.0.1:1' as never)).toThrow(
      new TypeError('options are required'),
    );
  });
});
