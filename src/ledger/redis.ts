/**
 * The single-use ledger of a fleet: every instance consumes ids in one Redis, with an atomic
 * `SET key 1 NX PX ttl`, so a token replayed on another instance is still refused.
 */
import { LedgerUnavailableError } from '../errors.js';
import { checkConsume, clockSkewOption } from './check.js';
import { checkPrefix, createRedisConnection, type RedisConnectionOptions } from './redis-client.js';
import type { SingleUseLedger } from './types.js';

/** Options of {@link createRedisLedger}. */
export interface RedisLedgerOptions extends RedisConnectionOptions {
  /** Prefix of every key. Default `stateguard:used:`. Give each application its own. */
  prefix?: string;
  /**
   * Extra time an id is remembered past its lifetime, in milliseconds. Default 60000. Instances check
   * expiry with their own clocks; one whose clock runs behind still accepts a token for that long, so
   * the id must outlive it there too.
   */
  clockSkewMs?: number;
}

/**
 * Create a single-use ledger in Redis. Any store error (refused connection, timeout, unexpected reply)
 * rejects with `LedgerUnavailableError`: the request is refused, never let through.
 *
 * @example
 * const ledger = createRedisLedger({ url: process.env.REDIS_URL! });
 * if (!(await ledger.consume(claims.tokenId, claims.expiresAt - now))) refuse('replayed');
 */
export function createRedisLedger(options: RedisLedgerOptions): SingleUseLedger {
  const prefix = checkPrefix(options.prefix, 'stateguard:used:');
  const skew = clockSkewOption(options.clockSkewMs);
  const redis = createRedisConnection(options);
  return {
    async consume(id, ttlMs) {
      checkConsume(id, ttlMs);
      // A relative TTL (PX), not an absolute one (PXAT): Redis then counts down on its own clock, and
      // only durations, never two hosts' clocks, are compared.
      const ttl = Math.ceil(ttlMs) + Math.ceil(skew);
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
