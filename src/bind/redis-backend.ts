/**
 * A handle store backend in Redis, shared by every instance: data and revocations hold fleet-wide.
 */
import {
  checkPrefix,
  createRedisConnection,
  type RedisConnectionOptions,
} from '../ledger/redis-client.js';
import type { HandleStoreBackend } from './store.js';

/** Options of {@link createRedisHandleBackend}. */
export interface RedisHandleBackendOptions extends RedisConnectionOptions {
  /** Prefix of every key. Default `stateguard:handle:`. */
  prefix?: string;
  /** Clock in milliseconds, like `Date.now`. */
  now?: () => number;
}

/**
 * Create a Redis handle store backend. Errors and timeouts reject, and the store turns them into
 * `HandleRejectedError('store-unavailable')`.
 */
export function createRedisHandleBackend(options: RedisHandleBackendOptions): HandleStoreBackend {
  const prefix = checkPrefix(options.prefix, 'stateguard:handle:');
  const now = options.now ?? Date.now;
  const redis = createRedisConnection(options);
  return {
    async set(key, value, expiresAtMs) {
      // Relative TTL: Redis counts down on its own clock (see the ledger).
      const ttl = Math.max(1, Math.ceil(expiresAtMs - now()));
      const reply = await redis.call('SET', `${prefix}${key}`, value, 'PX', ttl);
      if (reply !== 'OK') throw new Error('unexpected reply to SET');
    },
    async get(key) {
      const reply = await redis.call('GET', `${prefix}${key}`);
      if (reply === null) return undefined;
      if (typeof reply === 'string') return reply;
      if (Buffer.isBuffer(reply)) return reply.toString('utf8');
      throw new Error('unexpected reply to GET');
    },
    async delete(key) {
      const reply = await redis.call('DEL', `${prefix}${key}`);
      if (typeof reply !== 'number') throw new Error('unexpected reply to DEL');
      return reply > 0;
    },
    close: () => redis.close(),
  };
}
