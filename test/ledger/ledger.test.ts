import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createMemoryLedger,
  LedgerUnavailableError,
  type SingleUseLedger,
} from '../../src/index.js';
import { createRedisConnection } from '../../src/ledger/redis-client.js';
import { createRedisLedger } from '../../src/redis.js';
import {
  announceRedisSkip,
  REDIS_SKIP_REASON,
  provisionLedgers,
  startRedis,
  type RedisServer,
} from '../helpers/redis.js';

const PARALLEL = 200;
const newId = (): string => randomBytes(16).toString('base64url');
/** A lifetime of one minute: ledgers take lifetimes, not times. */
const inAMinute = (): number => 60_000;

/**
 * Consume `id` once the ledger's client has reconnected (it retries in the background with a bounded
 * backoff): a bounded number of attempts, each refusal checked to be the fail-closed one.
 */
async function consumeOnceBack(
  ledger: SingleUseLedger,
  id: string,
  issuedAgoMs?: number,
): Promise<boolean | undefined> {
  for (let attempt = 0; attempt < 60; attempt += 1) {
    try {
      return await ledger.consume(id, inAMinute(), issuedAgoMs);
    } catch (error) {
      expect(error).toBeInstanceOf(LedgerUnavailableError);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  return undefined;
}

/** The behaviour every single-use ledger must have. */
function ledgerContract(makeLedger: () => SingleUseLedger): void {
  it(`accepts exactly one of ${PARALLEL} parallel consumes of one id`, async () => {
    const ledger = makeLedger();
    const id = newId();
    const answers = await Promise.all(
      Array.from({ length: PARALLEL }, () => ledger.consume(id, inAMinute())),
    );
    expect(answers.filter((a) => a === true)).toHaveLength(1);
    expect(answers.filter((a) => a === false)).toHaveLength(PARALLEL - 1);
  });

  it('accepts each of many distinct ids once', async () => {
    const ledger = makeLedger();
    const ids = Array.from({ length: 50 }, newId);
    expect(await Promise.all(ids.map((id) => ledger.consume(id, inAMinute())))).toEqual(
      ids.map(() => true),
    );
    expect(await Promise.all(ids.map((id) => ledger.consume(id, inAMinute())))).toEqual(
      ids.map(() => false),
    );
  });

  it('rejects misuse with TypeError instead of answering', async () => {
    const ledger = makeLedger();
    await expect(ledger.consume('', inAMinute())).rejects.toThrow(TypeError);
    await expect(ledger.consume('x'.repeat(257), inAMinute())).rejects.toThrow(TypeError);
    await expect(ledger.consume(newId(), Number.NaN)).rejects.toThrow(TypeError);
    await expect(ledger.consume(newId(), 0)).rejects.toThrow(TypeError);
  });

  it('refuses an absolute time where a lifetime is due, instead of keeping or forgetting the id', async () => {
    const ledger = makeLedger();
    await expect(ledger.consume(newId(), Date.now() + 60_000)).rejects.toThrow(TypeError);
  });
}

describe('createMemoryLedger', () => {
  ledgerContract(() => createMemoryLedger());

  it('forgets an id once its lifetime and the skew margin are over, so memory can be pruned', async () => {
    let at = 1_800_000_000_000;
    const ledger = createMemoryLedger({ now: () => at, clockSkewMs: 500 });
    const id = newId();
    expect(await ledger.consume(id, 1_000)).toBe(true);
    at += 1_499;
    expect(await ledger.consume(id, 1_000)).toBe(false);
    at += 1;
    // The first entry expired: the id may be recorded again (its token could no longer open anyway).
    expect(await ledger.consume(id, 1_000)).toBe(true);
  });

  it('keeps an id a minute past its lifetime by default, like the Redis ledger', async () => {
    let at = 1_800_000_000_000;
    const ledger = createMemoryLedger({ now: () => at });
    const id = newId();
    expect(await ledger.consume(id, 1_000)).toBe(true);
    at += 60_999;
    expect(await ledger.consume(id, 1_000)).toBe(false);
  });

  it.each([
    ['NaN', Number.NaN],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['a negative time', -1],
    ['a string', '1800000000000'],
  ])(
    'refuses with LedgerUnavailableError, never "first use", when its clock returns %s',
    async (_label, broken) => {
      let clock: unknown = 1_800_000_000_000;
      const ledger = createMemoryLedger({ now: () => clock as number });
      const id = newId();
      expect(await ledger.consume(id, 60_000)).toBe(true);
      clock = broken;
      // On the old code every entry looked dead under NaN: the replay was a "first use".
      await expect(ledger.consume(id, 60_000)).rejects.toBeInstanceOf(LedgerUnavailableError);
      await expect(ledger.consume(newId(), 60_000)).rejects.toBeInstanceOf(LedgerUnavailableError);
    },
  );

  it('prunes expired ids instead of growing, and refuses when full of live ones', async () => {
    let at = 1_800_000_000_000;
    const ledger = createMemoryLedger({ now: () => at, maxEntries: 3, clockSkewMs: 0 });
    for (let i = 0; i < 3; i += 1) expect(await ledger.consume(newId(), 1_000)).toBe(true);
    // Forgetting a live id would allow a replay: a full ledger fails closed.
    await expect(ledger.consume(newId(), 1_000)).rejects.toBeInstanceOf(LedgerUnavailableError);
    expect(ledger.size).toBe(3);
    at += 1_000;
    expect(await ledger.consume(newId(), 1_000)).toBe(true);
    expect(ledger.size).toBe(1);
  });

  it('refuses after close', async () => {
    const ledger = createMemoryLedger();
    await ledger.close();
    await expect(ledger.consume(newId(), inAMinute())).rejects.toBeInstanceOf(
      LedgerUnavailableError,
    );
  });
});

describe('createRedisLedger on a client that answers oddly', () => {
  /** A caller-supplied client whose every command resolves to `reply` (or rejects with it). */
  const answering = (reply: unknown, fails = false) =>
    ({
      status: 'ready',
      call: () => (fails ? Promise.reject(reply) : Promise.resolve(reply)),
    }) as unknown as Redis;

  it.each([['QUEUED'], [1], [undefined]])(
    'refuses with LedgerUnavailableError when SET NX answers %j, neither "OK" nor null',
    async (reply) => {
      const ledger = createRedisLedger({ client: answering(reply) });
      await expect(ledger.consume(newId(), inAMinute())).rejects.toBeInstanceOf(
        LedgerUnavailableError,
      );
    },
  );

  it("answers a consume from the script's verdict on a caller-supplied client", async () => {
    const first = createRedisLedger({ client: answering(['e1:0', 'first']) });
    expect(await first.consume(newId(), inAMinute(), 0)).toBe(true);
    const used = createRedisLedger({ client: answering(['e1:0', 'used']) });
    expect(await used.consume(newId(), inAMinute(), 0)).toBe(false);
  });

  it('refuses a command that never answers once its timeout is over', async () => {
    const hanging = { status: 'ready', call: () => new Promise(() => {}) } as unknown as Redis;
    const ledger = createRedisLedger({ client: hanging, timeoutMs: 50 });
    const refusal = await ledger.consume(newId(), inAMinute()).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(LedgerUnavailableError);
    expect((refusal as LedgerUnavailableError).cause).toEqual(new Error('redis command timed out'));
  });

  it('keeps the store error as the cause of the refusal, for the server log', async () => {
    const down = new Error("READONLY You can't write against a read only replica.");
    const ledger = createRedisLedger({ client: answering(down, true) });
    await expect(ledger.consume(newId(), inAMinute())).rejects.toMatchObject({
      code: 'ERR_LEDGER_UNAVAILABLE',
      cause: down,
    });
  });
});

announceRedisSkip('createRedisLedger');

// Every prefix the ledgers below use on a Redis started for them (not on one restarted).
const PREFIXES = [
  'stateguard:used:',
  'app-a:',
  'app-b:',
  'app:',
  'garbled:',
  'lost-a:',
  'lost-b:',
  'skew:',
];

describe.skipIf(REDIS_SKIP_REASON !== undefined)('createRedisLedger', () => {
  let redis: RedisServer;
  const ledgers: SingleUseLedger[] = [];
  const track = (ledger: SingleUseLedger): SingleUseLedger => {
    ledgers.push(ledger);
    return ledger;
  };

  beforeAll(async () => {
    redis = await startRedis();
    await provisionLedgers(redis.url, PREFIXES);
  });
  afterAll(async () => {
    await Promise.all(ledgers.map((l) => l.close()));
    await redis?.kill();
  });

  ledgerContract(() => track(createRedisLedger({ url: redis.url, timeoutMs: 2_000 })));

  it(`accepts exactly one of ${PARALLEL} consumes spread over four clients`, async () => {
    const clients = Array.from({ length: 4 }, () =>
      track(createRedisLedger({ url: redis.url, timeoutMs: 2_000 })),
    );
    const id = newId();
    const answers = await Promise.all(
      Array.from({ length: PARALLEL }, (_, i) =>
        (clients[i % clients.length] as SingleUseLedger).consume(id, inAMinute()),
      ),
    );
    expect(answers.filter((a) => a === true)).toHaveLength(1);
  });

  it('keeps ledgers with different prefixes apart', async () => {
    const a = track(createRedisLedger({ url: redis.url, prefix: 'app-a:' }));
    const b = track(createRedisLedger({ url: redis.url, prefix: 'app-b:' }));
    const id = newId();
    expect(await a.consume(id, inAMinute())).toBe(true);
    expect(await b.consume(id, inAMinute())).toBe(true);
    expect(await a.consume(id, inAMinute())).toBe(false);
  });

  it('refuses every consume with LedgerUnavailableError once Redis is killed, accepting none', async () => {
    const spare = await startRedis();
    await provisionLedgers(spare.url, PREFIXES);
    try {
      const ledger = track(createRedisLedger({ url: spare.url, timeoutMs: 500 }));
      const used = newId();
      expect(await ledger.consume(used, inAMinute())).toBe(true);
      await spare.kill();
      const ids = [used, ...Array.from({ length: 20 }, newId)];
      const outcomes = await Promise.allSettled(ids.map((id) => ledger.consume(id, inAMinute())));
      for (const outcome of outcomes) {
        expect(outcome.status).toBe('rejected');
        if (outcome.status === 'rejected') {
          expect(outcome.reason).toBeInstanceOf(LedgerUnavailableError);
          expect((outcome.reason as LedgerUnavailableError).code).toBe('ERR_LEDGER_UNAVAILABLE');
        }
      }
    } finally {
      await spare.kill();
    }
  });

  it('refuses while Redis was never reachable, and recovers once it comes up', async () => {
    const gone = await startRedis();
    await provisionLedgers(gone.url, PREFIXES);
    await gone.kill();
    const ledger = track(createRedisLedger({ url: gone.url, timeoutMs: 500 }));
    await expect(ledger.consume(newId(), inAMinute())).rejects.toBeInstanceOf(
      LedgerUnavailableError,
    );
    await expect(ledger.consume(newId(), inAMinute())).rejects.toBeInstanceOf(
      LedgerUnavailableError,
    );
    // Never reachable, so never served: new, as provisioned.
    const back = await startRedis({ port: gone.port });
    await provisionLedgers(back.url, PREFIXES);
    try {
      const id = newId();
      expect(await consumeOnceBack(ledger, id)).toBe(true);
      expect(await ledger.consume(id, inAMinute())).toBe(false);
    } finally {
      await back.kill();
    }
  });

  it('recovers once Redis is back (empty), refusing until then', async () => {
    const first = await startRedis();
    await provisionLedgers(first.url, PREFIXES);
    let second: RedisServer | undefined;
    try {
      const ledger = track(createRedisLedger({ url: first.url, timeoutMs: 500, clockSkewMs: 0 }));
      expect(await ledger.consume(newId(), inAMinute())).toBe(true);
      await first.kill();
      await expect(ledger.consume(newId(), inAMinute())).rejects.toBeInstanceOf(
        LedgerUnavailableError,
      );
      second = await startRedis({ port: first.port });
      const id = newId();
      // Redis came back empty: only tokens issued after the loss (age 0, past the margin) are
      // served; older ones are refused (test/ledger/redis-amnesia.test.ts).
      expect(await consumeOnceBack(ledger, id, 0)).toBe(true);
      expect(await ledger.consume(id, inAMinute(), 0)).toBe(false);
    } finally {
      await first.kill();
      await second?.kill();
    }
  });

  it('refuses after close', async () => {
    const ledger = track(createRedisLedger({ url: redis.url, timeoutMs: 2_000 }));
    expect(await ledger.consume(newId(), inAMinute())).toBe(true);
    await ledger.close();
    await expect(ledger.consume(newId(), inAMinute())).rejects.toBeInstanceOf(
      LedgerUnavailableError,
    );
  });

  it('keeps an id in Redis for its lifetime plus the clock-skew margin', async () => {
    // An instance whose clock runs behind still accepts the token for the skew margin: the id must
    // outlive the lifetime there too, or the replay lands on a fresh "first use".
    const ledger = track(
      createRedisLedger({ url: redis.url, prefix: 'skew:', clockSkewMs: 30_000, timeoutMs: 2_000 }),
    );
    const probe = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
    try {
      const id = newId();
      expect(await ledger.consume(id, 10_000)).toBe(true);
      const left = await probe.pttl(`skew:${id}`);
      // Redis counts down from 40 000 ms; anything above the bare lifetime shows the margin is there.
      expect(left).toBeGreaterThan(10_000);
      expect(left).toBeLessThanOrEqual(40_000);
    } finally {
      probe.disconnect();
    }
  });

  it('keeps every key it writes under its prefix: the ids and the epoch', async () => {
    const spare = await startRedis();
    await provisionLedgers(spare.url, ['app:']);
    const probe = new Redis(spare.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
    try {
      const ledger = track(createRedisLedger({ url: spare.url, prefix: 'app:', timeoutMs: 2_000 }));
      const id = newId();
      expect(await ledger.consume(id, inAMinute(), 0)).toBe(true);
      expect((await probe.keys('*')).sort()).toEqual([`app:${id}`, 'app:epoch'].sort());
    } finally {
      probe.disconnect();
      await spare.kill();
    }
  });

  describe('once its epoch key is gone (evicted or deleted: Redis lost that memory)', () => {
    const probe = (): Redis => new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 1 });

    it('refuses a token issued before the loss, with the default options', async () => {
      const ledger = track(createRedisLedger({ url: redis.url, prefix: 'lost-a:' }));
      const client = probe();
      try {
        const id = newId();
        expect(await ledger.consume(id, inAMinute(), 0)).toBe(true);
        await client.del('lost-a:epoch', `lost-a:${id}`);
        const refusal = await ledger.consume(id, inAMinute(), 1_000).catch((e: unknown) => e);
        // The fence, not a store error: no cause.
        expect(refusal).toBeInstanceOf(LedgerUnavailableError);
        expect((refusal as LedgerUnavailableError).cause).toBeUndefined();
      } finally {
        client.disconnect();
      }
    });

    it('refuses tokens issued within the margin after the loss, and serves later ones', async () => {
      // The margin is the skew (none) plus the command timeout: a second.
      const ledger = track(
        createRedisLedger({ url: redis.url, prefix: 'lost-b:', clockSkewMs: 0, timeoutMs: 1_000 }),
      );
      const client = probe();
      try {
        expect(await ledger.consume(newId(), inAMinute(), 0)).toBe(true);
        await client.del('lost-b:epoch');
        await expect(ledger.consume(newId(), inAMinute(), 0)).rejects.toBeInstanceOf(
          LedgerUnavailableError,
        );
        // Issued five seconds after this moment (on the issuer's clock): past the fence and margin.
        expect(await ledger.consume(newId(), inAMinute(), -5_000)).toBe(true);
      } finally {
        client.disconnect();
      }
    });
  });

  it('takes a garbled reply for a refusal, not for a sign that Redis lost its memory', async () => {
    const real = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
    let garble = true;
    const client = {
      get status() {
        return real.status;
      },
      call: (...args: Parameters<Redis['call']>) => {
        if (!garble) return real.call(...args);
        garble = false;
        return Promise.resolve('QUEUED');
      },
    } as unknown as Redis;
    try {
      const ledger = createRedisLedger({ client, prefix: 'garbled:', timeoutMs: 2_000 });
      await expect(ledger.consume(newId(), inAMinute(), 0)).rejects.toBeInstanceOf(
        LedgerUnavailableError,
      );
      expect(await ledger.consume(newId(), inAMinute(), 0)).toBe(true);
    } finally {
      real.disconnect();
    }
  });

  it('leaves a caller-supplied client open when it closes', async () => {
    const client = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
    try {
      const ledger = createRedisLedger({ client, timeoutMs: 2_000 });
      expect(await ledger.consume(newId(), inAMinute())).toBe(true);
      await ledger.close();
      expect(await client.ping()).toBe('PONG');
    } finally {
      client.disconnect();
    }
  });

  it('passes the errors of the client it owns to onError, for the server log', async () => {
    const gone = await startRedis();
    await provisionLedgers(gone.url, PREFIXES);
    await gone.kill();
    const errors = new EventEmitter();
    const reported = nextEvent(errors, 'error');
    const ledger = track(
      createRedisLedger({
        url: gone.url,
        timeoutMs: 500,
        onError: (error) => errors.emit('error', error),
      }),
    );
    await expect(ledger.consume(newId(), inAMinute())).rejects.toBeInstanceOf(
      LedgerUnavailableError,
    );
    expect(await reported).toMatchObject({ code: 'ECONNREFUSED' });
  });

  it('refuses a misconfigured URL without echoing it', () => {
    expect(() => createRedisLedger({ url: 'http://user:hunter2@host' })).toThrow(TypeError);
    try {
      createRedisLedger({ url: 'http://user:hunter2@host' });
    } catch (error) {
      expect(String(error)).not.toContain('hunter2');
    }
  });
});

/** The first `event` `emitter` emits, with its argument; rejects if none comes within `boundMs`. */
function nextEvent(emitter: EventEmitter, event: string, boundMs = 5_000): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      emitter.off(event, seen);
      reject(new Error(`no ${event} event within ${boundMs} ms`));
    }, boundMs);
    const seen = (arg: unknown): void => {
      clearTimeout(timer);
      resolve(arg);
    };
    emitter.once(event, seen);
  });
}

/** The message of a refusal's cause (the store error the ledger keeps). */
const causeOf = (refusal: unknown): string => {
  expect(refusal).toBeInstanceOf(LedgerUnavailableError);
  const cause = (refusal as LedgerUnavailableError).cause;
  expect(cause).toBeInstanceOf(Error);
  return (cause as Error).message;
};

describe.skipIf(REDIS_SKIP_REASON !== undefined)('the Redis client the ledger creates', () => {
  it("refuses while Redis is down with ioredis's offline refusal, queuing nothing for later", async () => {
    const spare = await startRedis();
    await provisionLedgers(spare.url, PREFIXES);
    const connectionErrors = new EventEmitter();
    const ledger = createRedisLedger({
      url: spare.url,
      timeoutMs: 2_000,
      onError: (error) => connectionErrors.emit('error', error),
    });
    try {
      expect(await ledger.consume(newId(), inAMinute())).toBe(true);
      const refused = nextEvent(connectionErrors, 'error');
      await spare.kill();
      // A reconnection attempt was refused: the client knows Redis is gone.
      expect(await refused).toMatchObject({ code: 'ECONNREFUSED' });
      const refusal = await ledger.consume(newId(), inAMinute()).catch((e: unknown) => e);
      // ioredis's own refusal of a command while offline, not our timeout after a queued wait, nor
      // a queued command dropped at the next failed reconnection.
      expect(causeOf(refusal)).toBe(
        "Stream isn't writeable and enableOfflineQueue options is false",
      );
    } finally {
      await ledger.close();
      await spare.kill();
    }
  });

  it('reconnects in the background after 100 ms, then 200 ms, …, at most every 2 s', async () => {
    const spare = await startRedis();
    await provisionLedgers(spare.url, PREFIXES);
    const connection = createRedisConnection({ url: spare.url, timeoutMs: 2_000 });
    try {
      expect(await connection.call('PING')).toBe('PONG');
      const first = nextEvent(connection.client, 'reconnecting');
      await spare.kill();
      expect(await first).toBe(100);
      // The next delay is announced once the first reconnection attempt was refused.
      expect(await nextEvent(connection.client, 'reconnecting')).toBe(200);
      const { retryStrategy } = connection.client.options;
      expect([10, 19, 20, 21, 1_000].map((times) => retryStrategy?.(times))).toEqual([
        1_000, 1_900, 2_000, 2_000, 2_000,
      ]);
    } finally {
      await connection.close();
      await spare.kill();
    }
  });

  it('drops a command in flight when Redis dies, instead of replaying it on the restarted one', async () => {
    const spare = await startRedis();
    await provisionLedgers(spare.url, PREFIXES);
    let back: RedisServer | undefined;
    const connection = createRedisConnection({ url: spare.url, timeoutMs: 300 });
    const pauser = new Redis(spare.url, { lazyConnect: true, maxRetriesPerRequest: 0 });
    try {
      expect(await connection.call('PING')).toBe('PONG');
      // Redis holds every other client's commands from here on, unread.
      expect(await pauser.call('CLIENT', 'PAUSE', 60_000, 'ALL')).toBe('OK');
      // Written to the socket, never answered: refused at its timeout, still unfulfilled in ioredis.
      await expect(connection.call('SET', 'in-flight', '1')).rejects.toThrow(/timed out/i);
      const reconnected = nextEvent(connection.client, 'ready');
      await spare.kill();
      back = await startRedis({ port: spare.port });
      await reconnected;
      // Sent after anything ioredis would replay on the new connection, so answered after it.
      expect(await connection.call('EXISTS', 'in-flight')).toBe(0);
    } finally {
      pauser.disconnect();
      await connection.close();
      await spare.kill();
      await back?.kill();
    }
  });

  it('stays closed when closed before its first use: no connection is opened again', async () => {
    const spare = await startRedis();
    await provisionLedgers(spare.url, PREFIXES);
    const connection = createRedisConnection({ url: spare.url, timeoutMs: 2_000 });
    try {
      const ended = nextEvent(connection.client, 'end');
      await connection.close();
      await ended;
      const refusal = await connection.call('PING').catch((e: unknown) => e);
      expect(refusal).toEqual(new Error('Connection is closed.'));
    } finally {
      await spare.kill();
    }
  });
});
