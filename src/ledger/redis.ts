/**
 * The single-use ledger of a fleet: every instance consumes ids in one Redis, with an atomic
 * `SET key 1 NX PX ttl`, so a token replayed on another instance is still refused.
 */
import { LedgerUnavailableError } from '../errors.js';
import { checkConsume } from './check.js';
import { checkPrefix, createRedisConnection, type RedisConnectionOptions } from './redis-client.js';
import type { SingleUseLedger } from './types.js';

/** Options of {@link createRedisLedger}. */
export interface RedisLedgerOptions extends RedisConnectionOptions {
  /** Prefix of every key. Default `stateguard:used:`. Give each application its own. */
  prefix?: string;
  /**
   * Extra time an id is remembered past its expiry, in milliseconds. Default 60000. Instances check
   * expiry with their own clocks; one whose clock runs behind still accepts a token for that long, so
   * the id must outlive it there too.
   */
  clockSkewMs?: number;
  /** Clock in milliseconds, like `Date.now`. */
  now?: () => number;
}

/**
 * Create a single-use ledger in Redis. Any store error (refused connection, timeout, unexpected reply)
 * rejects with `LedgerUnavailableError`: the request is refused, never let through.
 *
 * @example
 * const ledger = createRedisLedger({ url: process.env.REDIS_URL! });
 * if (!(await ledger.consume(claims.tokenId, claims.expiresAt))) refuse('replayed');
 */
export function createRedisLedger(options: RedisLedgerOptions): SingleUseLedger {
  const prefix = checkPrefix(options.prefix, 'stateguard:used:');
  const skew = options.clockSkewMs ?? 60_000;
  if (typeof skew !== 'number' || !Number.isFinite(skew) || skew < 0) {
    throw new RangeError(`clockSkewMs must be a non-negative finite number, got ${typeof skew}`);
  }
  const now = options.now ?? Date.now;
  const redis = createRedisConnection(options);
  return {
    async consume(id, expiresAtMs) {
      checkConsume(id, expiresAtMs);
      // A relative TTL (PX), not an absolute one (PXAT): Redis then counts down on its own clock, and
      // only durations, never two hosts' clocks, are compared.
      const ttl = Math.max(1, Math.ceil(expiresAtMs - now())) + Math.ceil(skew);
      let reply: unknown;
      try {
        reply = await redis.call('SET', `${prefix}${id}`, '1', 'PX', ttl, 'NX');
      } catch (error) {
        throw new LedgerUnavailableError({ cause: error });
      }
      if (reply === 'OK') return true;
      if (reply === null) return false;
      // Neither answer of SET NX: something else is on the other end. Refuse.
      throw new LedgerUnavailableError();
    },
    close: () => redis.close(),
  };
}
