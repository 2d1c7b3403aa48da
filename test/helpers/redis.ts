/**
 * A real, throwaway `redis-server` for tests (the launcher lives in harness/bench/redis-server.ts, shared
 * with the bench). Where `redis-server` is not installed, `REDIS_SKIP_REASON` says so and the Redis
 * suites are skipped with that reason printed.
 */
import { redisServerMissing } from '../../harness/bench/redis-server.js';

export { startRedis, type RedisServer } from '../../harness/bench/redis-server.js';

/** Why the Redis suites cannot run here, or `undefined` when `redis-server` is available. */
export const REDIS_SKIP_REASON: string | undefined = redisServerMissing();

/** Print, once per suite file, which tests are skipped and why. */
export function announceRedisSkip(suite: string): void {
  if (REDIS_SKIP_REASON !== undefined) {
    console.warn(`[skipped] ${suite}: ${REDIS_SKIP_REASON}`);
  }
}

/**
 * Declare a just-started Redis new for these ledger prefixes (`provisionRedisLedger`): a Redis a
 * ledger never used would otherwise be fenced at its first consume, like one that lost its memory.
 * Never for a Redis restarted in a test: there the fence is what is tested.
 */
export async function provisionLedgers(
  url: string,
  prefixes: readonly string[] = ['stateguard:used:'],
): Promise<void> {
  const { provisionRedisLedger } = await import('../../src/ledger/redis.js');
  for (const prefix of prefixes) await provisionRedisLedger({ url, prefix, timeoutMs: 2_000 });
}
