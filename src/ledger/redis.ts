/**
 * The single-use ledger of a fleet: every instance consumes ids in one Redis, with an atomic
 * `SET key 1 NX PX ttl`, so a token replayed on another instance is still refused.
 *
 * A Redis that loses its memory (restarted without persistence, flushed, failed over to a replica
 * that lagged, keys evicted) would answer "first use" for every id it forgot: a final round used a
 * minute before the restart would run again after it. So the ledger keeps an epoch key beside the
 * ids: created once, never expiring, remembered by every ledger that has seen it. A ledger that
 * finds it gone, or replaced by a fresh one it did not write, knows the memory was lost and writes
 * a fenced epoch carrying the time of the loss (on Redis's clock). From then on every ledger
 * refuses the tokens that may have been issued before the fence (`LedgerUnavailableError`: it
 * cannot know whether they were used) and serves those issued after it.
 *
 * A ledger that finds no epoch at all fences too, whether or not it ever saw one: an instance that
 * joins after the loss (or restarts with it) is as blind to it as Redis is, and a final round used
 * before the loss and replayed there first must still be refused. A Redis that has truly never
 * served is declared so once with {@link provisionRedisLedger}; otherwise the fleet's first
 * consume fences like any loss (tokens issued before it, and within the margin after it, are
 * refused once). The margin is the clock-skew allowance plus the command timeout: an issuer whose
 * clock runs ahead stamps a token issued before the loss with a later time, by up to the skew.
 */
import { randomBytes } from 'node:crypto';
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
   * the id must outlive it there too. After Redis lost its memory, tokens issued up to this long
   * after the loss are refused too, since the issuer's clock may have run that far ahead.
   */
  clockSkewMs?: number;
}

/** The id reserved for the epoch key (`<prefix>epoch`); sealed token ids are 22 characters. */
const EPOCH_ID = 'epoch';

/**
 * KEYS: id key, epoch key. ARGV: ttl, issuedAgoMs ('' unknown), the epoch this ledger knows ('' none),
 * a fresh epoch id, margin (ms). Epochs read `<id>:<fence ms on Redis's clock, 0 for none>`.
 * Returns { epoch, 'first' | 'used' | 'fenced' }.
 *
 * A missing epoch is always written fenced: a ledger that never saw one cannot tell a Redis that
 * never served from one that forgot (only {@link provisionRedisLedger} says a Redis is new). An
 * unfenced epoch this ledger did not write, replacing the one it knew, is a loss too.
 */
const CONSUME_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local epoch = redis.call('GET', KEYS[2])
local known = ARGV[3]
if not epoch then
  epoch = ARGV[4] .. ':' .. now
  redis.call('SET', KEYS[2], epoch)
elseif known ~= '' and string.sub(epoch, 1, #known + 1) ~= known .. ':' and string.sub(epoch, -2) == ':0' then
  epoch = ARGV[4] .. ':' .. now
  redis.call('SET', KEYS[2], epoch)
end
local fence = tonumber(string.match(epoch, ':(%d+)$')) or now
if fence > 0 then
  if ARGV[2] == '' or now - tonumber(ARGV[2]) - tonumber(ARGV[5]) < fence then
    return { epoch, 'fenced' }
  end
end
if redis.call('SET', KEYS[1], '1', 'PX', ARGV[1], 'NX') then return { epoch, 'first' } end
return { epoch, 'used' }
`;

/** Options of {@link provisionRedisLedger}: where the ledgers' keys live. */
export interface ProvisionRedisLedgerOptions extends RedisConnectionOptions {
  /** The prefix the ledgers use. Default `stateguard:used:`. */
  prefix?: string;
}

/**
 * Declare a Redis new: it has never held a ledger's ids under this prefix, so its first epoch
 * carries no fence and tokens issued before the fleet's first consume are served. Call it once,
 * when the Redis is provisioned, before any instance serves; never after a restart, a flush or a
 * failover (then the fence is what keeps used tokens used). It only writes an epoch where there is
 * none (`SET NX`): a Redis that already has one keeps it. Resolves true when it wrote the epoch.
 */
export async function provisionRedisLedger(options: ProvisionRedisLedgerOptions): Promise<boolean> {
  const prefix = checkPrefix(options.prefix, 'stateguard:used:');
  const redis = createRedisConnection(options);
  try {
    const reply = await redis.call(
      'SET',
      `${prefix}${EPOCH_ID}`,
      `${randomBytes(12).toString('base64url')}:0`,
      'NX',
    );
    return reply === 'OK';
  } catch (error) {
    throw new LedgerUnavailableError({ cause: error });
  } finally {
    await redis.close();
  }
}

/**
 * Create a single-use ledger in Redis. Any store error (refused connection, timeout, unexpected reply)
 * rejects with `LedgerUnavailableError`: the request is refused, never let through. So does a token
 * that may have been issued before Redis lost its memory (see the module comment).
 *
 * @example
 * const ledger = createRedisLedger({ url: process.env.REDIS_URL! });
 * if (!(await ledger.consume(claims.tokenId, claims.expiresAt - now, now - claims.issuedAt))) refuse('replayed');
 */
export function createRedisLedger(options: RedisLedgerOptions): SingleUseLedger {
  const prefix = checkPrefix(options.prefix, 'stateguard:used:');
  const skew = clockSkewOption(options.clockSkewMs);
  const redis = createRedisConnection(options);
  // The age is measured before the command leaves; Redis reads its clock up to a timeout later.
  const margin = Math.ceil(skew) + Math.ceil(options.timeoutMs ?? 1000);
  let known = '';
  return {
    async consume(id, ttlMs, issuedAgoMs) {
      checkConsume(id, ttlMs, issuedAgoMs);
      if (id === EPOCH_ID) throw new TypeError(`id "${EPOCH_ID}" is reserved`);
      // A relative TTL (PX), not an absolute one (PXAT): Redis then counts down on its own clock, and
      // only durations, never two hosts' clocks, are compared.
      const ttl = Math.ceil(ttlMs) + Math.ceil(skew);
      let reply: unknown;
      try {
        reply = await redis.call(
          'EVAL',
          CONSUME_SCRIPT,
          2,
          `${prefix}${id}`,
          `${prefix}${EPOCH_ID}`,
          ttl,
          issuedAgoMs === undefined ? '' : Math.floor(issuedAgoMs),
          known,
          randomBytes(12).toString('base64url'),
          margin,
        );
      } catch (error) {
        throw new LedgerUnavailableError({ cause: error });
      }
      const [epoch, verdict] = Array.isArray(reply) ? reply : [];
      if (typeof epoch === 'string') known = epoch.slice(0, epoch.lastIndexOf(':'));
      if (verdict === 'first') return true;
      if (verdict === 'used') return false;
      // Fenced (it may have been used before Redis forgot), or something else on the other end.
      throw new LedgerUnavailableError();
    },
    close: () => redis.close(),
  };
}
