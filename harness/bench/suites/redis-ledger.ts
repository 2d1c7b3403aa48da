/**
 * Suite "redis-ledger": what single-use costs. One consume of a fresh id in the Redis ledger (a real
 * `redis-server` on loopback, started here) against the memory ledger and against one seal plus one
 * open of a small `requestState`, the work every guarded round does anyway.
 *
 * Skipped, with the reason printed, where `redis-server` is not installed.
 */
import { randomBytes } from 'node:crypto';
import { createMemoryLedger, createStateSealer, type StateBinding } from '../../../src/index.js';
import { createRedisLedger, provisionRedisLedger } from '../../../src/redis.js';
import { compare, formatCount, formatRatio, type BenchSuite, type Budget } from '../harness.js';
import { redisServerMissing, startRedis } from '../redis-server.js';

/** A loopback round trip should cost tens of seal + open, not hundreds. */
const REDIS_VS_SEALER_TARGET = 30;

const binding: StateBinding = { principal: 'user-42', method: 'tools/call', name: 'confirm' };
const state = { d: 'abcdefgh' };

/** The Redis ledger suite. */
export const redisLedgerSuite: BenchSuite = {
  name: 'redis-ledger',
  summary: 'single-use consume: Redis (loopback) vs memory ledger vs requestState seal + open',
  async run(budget: Budget) {
    const missing = redisServerMissing();
    if (missing !== undefined) {
      return {
        tables: [
          { title: 'redis-ledger: skipped', columns: ['reason'], rows: [[missing]], notes: [] },
        ],
        checks: [],
      };
    }
    const server = await startRedis();
    // Started for the bench, never served: new (else the first consume is fenced, as after a loss).
    await provisionRedisLedger({ url: server.url });
    const redis = createRedisLedger({ url: server.url, timeoutMs: 2_000 });
    const memory = createMemoryLedger({ maxEntries: 10_000_000 });
    try {
      const sealer = createStateSealer({ keys: randomBytes(32), audience: 'bench' });
      const run = randomBytes(6).toString('base64url');
      let n = 0;
      const fresh = (): string => `${run}-${(n += 1)}`;
      const expires = 600_000; // a lifetime: ledgers count it down on their own clock
      // Prove both ledgers really refuse a second consume before timing them.
      const probe = fresh();
      if (!(await redis.consume(probe, expires)) || (await redis.consume(probe, expires))) {
        throw new Error('redis ledger is not single-use');
      }
      if (!(await memory.consume(probe, expires)) || (await memory.consume(probe, expires))) {
        throw new Error('memory ledger is not single-use');
      }

      const [r, m, s] = await compare(
        [
          { label: 'redis consume', op: () => redis.consume(fresh(), expires) },
          { label: 'memory consume', op: () => memory.consume(fresh(), expires) },
          {
            label: 'requestState seal + open',
            op: () => sealer.open(sealer.seal(state, binding), binding),
          },
        ],
        budget,
      );
      if (!r || !m || !s) throw new Error('missing measurement');
      const vsSealer = r.nsPerOp / s.nsPerOp;
      return {
        tables: [
          {
            title: 'single-use consume, one at a time (median of interleaved rounds)',
            columns: ['contender', 'ops/s', 'ns/op', 'vs sealer', 'vs memory'],
            rows: [r, m, s].map((x) => [
              x.label,
              formatCount(x.opsPerSec),
              formatCount(x.nsPerOp),
              formatRatio(x.nsPerOp / s.nsPerOp),
              formatRatio(x.nsPerOp / m.nsPerOp),
            ]),
            notes: [
              'redis: one EVAL (epoch check + SET key 1 PX ttl NX) on a local redis-server, one in flight.',
              'memory: the in-process ledger (atomic check-and-set, bounded map).',
            ],
          },
        ],
        checks: [
          {
            label: 'redis consume / requestState seal + open',
            actual: formatRatio(vsSealer),
            target: `≤ ${formatRatio(REDIS_VS_SEALER_TARGET)}`,
            met: vsSealer <= REDIS_VS_SEALER_TARGET,
          },
        ],
      };
    } finally {
      await redis.close();
      await memory.close();
      await server.kill();
    }
  },
};
