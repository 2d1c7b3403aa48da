/**
 * A Redis that loses its memory (restarted without persistence) must not turn used tokens into
 * first uses. Found by the soak (issue 14): after a Redis restart, final rounds completed before it
 * were accepted again, and every one created its report twice.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { LedgerUnavailableError, type SingleUseLedger } from '../../src/index.js';
import { createRedisLedger } from '../../src/redis.js';
import {
  announceRedisSkip,
  provisionLedgers,
  REDIS_SKIP_REASON,
  startRedis,
  type RedisServer,
} from '../helpers/redis.js';

const newId = (): string => randomBytes(16).toString('base64url');
const MINUTE = 60_000;
const TIMEOUT_MS = 300;

const ledgers: SingleUseLedger[] = [];
const servers: RedisServer[] = [];
afterAll(async () => {
  await Promise.allSettled(ledgers.map((l) => l.close()));
  await Promise.allSettled(servers.map((s) => s.kill()));
});

/** A Redis: started new (and provisioned as new), or restarted empty on `port`. */
async function redis(port?: number): Promise<RedisServer> {
  const server = await startRedis(port === undefined ? {} : { port });
  servers.push(server);
  if (port === undefined) await provisionLedgers(server.url);
  return server;
}

function ledger(url: string, clockSkewMs = 0): SingleUseLedger {
  const created = createRedisLedger({ url, timeoutMs: TIMEOUT_MS, clockSkewMs });
  ledgers.push(created);
  return created;
}

/** Restart `server` empty on its port (no persistence), as a crashed Redis comes back. */
async function restartEmpty(server: RedisServer): Promise<RedisServer> {
  await server.kill();
  return redis(server.port);
}

/** Consume once the ledger has reconnected (bounded), keeping only a non-transport answer. */
async function settle(work: () => Promise<boolean>): Promise<boolean | LedgerUnavailableError> {
  let last: unknown;
  for (let attempt = 0; attempt < 40; attempt += 1) {
    try {
      return await work();
    } catch (error) {
      expect(error).toBeInstanceOf(LedgerUnavailableError);
      last = error;
      // A refusal with no cause is the fence (or a bad reply); a cause is the connection.
      if ((error as { cause?: unknown }).cause === undefined)
        return error as LedgerUnavailableError;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  throw last;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

announceRedisSkip('createRedisLedger after Redis lost its memory');

describe.skipIf(REDIS_SKIP_REASON !== undefined)(
  'createRedisLedger after Redis lost its memory',
  () => {
    it('refuses a token used before the loss with LedgerUnavailableError, never "first use"', async () => {
      const server = await redis();
      const survivor = ledger(server.url);
      const used = newId();
      expect(await survivor.consume(used, MINUTE, 0)).toBe(true);
      await sleep(50);
      await restartEmpty(server);
      // Before the fix this answered true: the restarted Redis had forgotten the id.
      const replay = await settle(() => survivor.consume(used, MINUTE, 1_000));
      expect(replay).toBeInstanceOf(LedgerUnavailableError);
      // So is any other token issued before the loss: nobody can tell whether it was used.
      expect(await settle(() => survivor.consume(newId(), MINUTE, 1_000))).toBeInstanceOf(
        LedgerUnavailableError,
      );
    });

    it('serves tokens issued after the loss, once past the margin, exactly once', async () => {
      const server = await redis();
      const survivor = ledger(server.url);
      expect(await survivor.consume(newId(), MINUTE, 0)).toBe(true);
      await restartEmpty(server);
      expect(await settle(() => survivor.consume(newId(), MINUTE, 5_000))).toBeInstanceOf(
        LedgerUnavailableError,
      );
      // The margin is the skew (0 here) plus the command timeout.
      await sleep(TIMEOUT_MS + 100);
      const fresh = newId();
      expect(await survivor.consume(fresh, MINUTE, 0)).toBe(true);
      expect(await survivor.consume(fresh, MINUTE, 0)).toBe(false);
    });

    it('refuses a final round replayed first on an instance that joined after the loss', async () => {
      const server = await redis();
      const survivor = ledger(server.url);
      const used = newId();
      expect(await survivor.consume(used, MINUTE, 0)).toBe(true);
      await sleep(50);
      await restartEmpty(server);
      // A fresh instance reaches the empty Redis first, with the replay: it never saw an epoch, so
      // it cannot know anything was lost. Before the fix it wrote an unfenced epoch and answered true.
      const newcomer = ledger(server.url);
      expect(await settle(() => newcomer.consume(used, MINUTE, 1_000))).toBeInstanceOf(
        LedgerUnavailableError,
      );
      // The fence it wrote holds for the survivor too, for that token and any other as old.
      expect(await settle(() => survivor.consume(used, MINUTE, 1_000))).toBeInstanceOf(
        LedgerUnavailableError,
      );
      await expect(newcomer.consume(newId(), MINUTE, 1_000)).rejects.toBeInstanceOf(
        LedgerUnavailableError,
      );
    });

    it('refuses a token used before the loss whose issuer clock ran ahead by less than the skew', async () => {
      // The issuer's clock runs AHEAD seconds ahead: every age the consumer computes is short by that
      // much, so a token issued before the loss looks issued up to AHEAD later. Only the skew term of
      // the margin (SKEW > AHEAD) keeps it on the fenced side: without it, the fence would sit at
      // the timeout alone, and this replay (well within AHEAD of the loss) would be served.
      const SKEW = 5_000;
      const AHEAD = 4_000;
      const server = await redis();
      const survivor = ledger(server.url, SKEW);
      const used = newId();
      const issued = Date.now();
      expect(await survivor.consume(used, MINUTE, -AHEAD)).toBe(true);
      await restartEmpty(server);
      const newcomer = ledger(server.url, SKEW);
      const replay = await settle(() =>
        newcomer.consume(used, MINUTE, Date.now() - issued - AHEAD),
      );
      // The premise: the replay came soon enough after the loss for the skew to matter.
      expect(Date.now() - issued).toBeLessThan(AHEAD - TIMEOUT_MS);
      expect(replay).toBeInstanceOf(LedgerUnavailableError);
    });

    it('serves tokens issued after the fence plus the skew, on a fresh instance too', async () => {
      const SKEW = 1_000;
      const server = await redis();
      expect(await ledger(server.url, SKEW).consume(newId(), MINUTE, 0)).toBe(true);
      await restartEmpty(server);
      const newcomer = ledger(server.url, SKEW);
      expect(await settle(() => newcomer.consume(newId(), MINUTE, 0))).toBeInstanceOf(
        LedgerUnavailableError,
      );
      await sleep(SKEW + TIMEOUT_MS + 100);
      const fresh = newId();
      expect(await newcomer.consume(fresh, MINUTE, 0)).toBe(true);
      expect(await newcomer.consume(fresh, MINUTE, 0)).toBe(false);
    });

    it('refuses a consume that gives no age once a loss was seen', async () => {
      const server = await redis();
      const survivor = ledger(server.url);
      expect(await survivor.consume(newId(), MINUTE)).toBe(true);
      await restartEmpty(server);
      expect(await settle(() => survivor.consume(newId(), MINUTE))).toBeInstanceOf(
        LedgerUnavailableError,
      );
    });

    it('fences nothing on a Redis provisioned as new: its first epoch comes before any use', async () => {
      const server = await redis();
      const first = ledger(server.url);
      expect(await first.consume(newId(), MINUTE, 30_000)).toBe(true);
      expect(await ledger(server.url).consume(newId(), MINUTE, 30_000)).toBe(true);
      expect(await ledger(server.url).consume(newId(), MINUTE)).toBe(true);
    });

    it('fences a Redis nobody provisioned at its first consume: it may be one that forgot', async () => {
      const server = await startRedis();
      servers.push(server);
      const first = ledger(server.url);
      await expect(first.consume(newId(), MINUTE, 30_000)).rejects.toBeInstanceOf(
        LedgerUnavailableError,
      );
      // Provisioning later changes nothing: an epoch is there.
      await provisionLedgers(server.url);
      await expect(ledger(server.url).consume(newId(), MINUTE)).rejects.toBeInstanceOf(
        LedgerUnavailableError,
      );
    });

    it('reserves the id of the epoch key', async () => {
      const server = await redis();
      await expect(ledger(server.url).consume('epoch', MINUTE, 0)).rejects.toThrow(TypeError);
    });
  },
);
