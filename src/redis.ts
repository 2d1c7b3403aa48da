/**
 * stateguard/redis: the Redis-backed single-use ledger and handle store backend, for servers running
 * on several instances.
 *
 * A subpath of its own so that the root barrel never loads the Redis client: a server on one instance
 * pays nothing for it.
 */
export {
  createRedisLedger,
  provisionRedisLedger,
  type ProvisionRedisLedgerOptions,
  type RedisLedgerOptions,
} from './ledger/redis.js';
export { createRedisHandleBackend, type RedisHandleBackendOptions } from './bind/redis-backend.js';
export type { RedisConnectionOptions } from './ledger/redis-client.js';
