import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createHandleBinder,
  createHandleStore,
  createMemoryHandleBackend,
  HandleRejectedError,
  type HandleRejection,
  type HandleStoreBackend,
} from '../../src/index.js';
import { createRedisHandleBackend } from '../../src/redis.js';
import {
  announceRedisSkip,
  REDIS_SKIP_REASON,
  startRedis,
  type RedisServer,
} from '../helpers/redis.js';

const KEY = 'k'.repeat(32);
const ALICE = 'alice';
const BOB = 'bob';

async function expectRejected(work: Promise<unknown>, reason: HandleRejection): Promise<void> {
  await expect(work).rejects.toBeInstanceOf(HandleRejectedError);
  await expect(work).rejects.toMatchObject({ code: 'ERR_HANDLE_REJECTED', reason });
}

interface Workspace {
  title: string;
  members: string[];
}

/** The behaviour every backend must give a store. */
function storeContract(makeBackend: () => HandleStoreBackend): void {
  const binder = createHandleBinder({ keys: KEY, audience: 'notes' });
  const store = () => createHandleStore<Workspace>({ binder, backend: makeBackend() });

  it('returns the data kept for a handle to its principal', async () => {
    const s = store();
    const handle = await s.create(ALICE, 'workspace', { title: 'Q3', members: ['a'] });
    expect(await s.get(handle, ALICE, 'workspace')).toEqual({ title: 'Q3', members: ['a'] });
  });

  it('keeps data apart per handle', async () => {
    const s = store();
    const one = await s.create(ALICE, 'workspace', { title: 'one', members: [] });
    const two = await s.create(ALICE, 'workspace', { title: 'two', members: [] });
    expect((await s.get(one, ALICE, 'workspace')).title).toBe('one');
    expect((await s.get(two, ALICE, 'workspace')).title).toBe('two');
  });

  it('refuses another principal with reason "principal", and lets them revoke nothing', async () => {
    const s = store();
    const handle = await s.create(ALICE, 'workspace', { title: 'secret', members: [] });
    await expectRejected(s.get(handle, BOB, 'workspace'), 'principal');
    await expectRejected(s.revoke(handle, BOB, 'workspace'), 'principal');
    expect((await s.get(handle, ALICE, 'workspace')).title).toBe('secret');
  });

  it('refuses a handle of another kind with reason "kind"', async () => {
    const s = store();
    const handle = await s.create(ALICE, 'workspace', { title: 't', members: [] });
    await expectRejected(s.get(handle, ALICE, 'basket'), 'kind');
  });

  it('refuses a revoked handle with reason "revoked"', async () => {
    const s = store();
    const handle = await s.create(ALICE, 'workspace', { title: 't', members: [] });
    expect(await s.revoke(handle, ALICE, 'workspace')).toBe(true);
    await expectRejected(s.get(handle, ALICE, 'workspace'), 'revoked');
    expect(await s.revoke(handle, ALICE, 'workspace')).toBe(false);
  });

  it('refuses a genuine handle whose data it never stored with reason "revoked"', async () => {
    const s = store();
    await expectRejected(s.get(binder.mint(ALICE, 'workspace'), ALICE, 'workspace'), 'revoked');
  });
}

describe('createHandleStore on the memory backend', () => {
  storeContract(() => createMemoryHandleBackend());

  it('forgets data when the handle expires, and prunes it', async () => {
    let at = 1_800_000_000_000;
    const now = () => at;
    const binder = createHandleBinder({ keys: KEY, audience: 'notes', ttlSeconds: 60, now });
    const backend = createMemoryHandleBackend({ maxEntries: 1, now });
    const store = createHandleStore<string>({ binder, backend });
    const first = await store.create(ALICE, 'workspace', 'first');
    // Full of live entries: the store refuses to mint rather than drop one.
    await expectRejected(store.create(ALICE, 'workspace', 'second'), 'store-unavailable');
    at += 60_000;
    await expectRejected(store.get(first, ALICE, 'workspace'), 'expired');
    const second = await store.create(ALICE, 'workspace', 'second');
    expect(await store.get(second, ALICE, 'workspace')).toBe('second');
  });

  it('finds a handle\u2019s data through a key rotation, keyed by the tag the handle carries', async () => {
    const OLD = 'o'.repeat(32);
    const backend = createMemoryHandleBackend();
    const before = createHandleStore<string>({
      binder: createHandleBinder({ keys: OLD, audience: 'notes' }),
      backend,
    });
    const after = createHandleStore<string>({
      binder: createHandleBinder({ keys: [KEY, OLD], audience: 'notes' }),
      backend,
    });
    const handle = await before.create(ALICE, 'workspace', 'kept');
    expect(await after.get(handle, ALICE, 'workspace')).toBe('kept');
    await expectRejected(after.get(handle, BOB, 'workspace'), 'principal');
    expect(await after.revoke(handle, ALICE, 'workspace')).toBe(true);
    await expectRejected(before.get(handle, ALICE, 'workspace'), 'revoked');
  });

  it('fails closed with reason "store-unavailable" when the backend throws, and logs the cause', async () => {
    const binder = createHandleBinder({ keys: KEY, audience: 'notes' });
    const healthy = createMemoryHandleBackend();
    let broken = false;
    const backend: HandleStoreBackend = {
      set: (k, v, e) => healthy.set(k, v, e),
      get: (k) => (broken ? Promise.reject(new Error('disk on fire')) : healthy.get(k)),
      delete: (k) => healthy.delete(k),
      close: () => healthy.close(),
    };
    const logged: unknown[] = [];
    const store = createHandleStore<string>({
      binder,
      backend,
      onStoreError: (e) => logged.push(e),
    });
    const handle = await store.create(ALICE, 'workspace', 'data');
    broken = true;
    await expectRejected(store.get(handle, ALICE, 'workspace'), 'store-unavailable');
    expect(logged).toEqual([expect.objectContaining({ message: 'disk on fire' })]);
  });
});

announceRedisSkip('createHandleStore on the Redis backend');

describe.skipIf(REDIS_SKIP_REASON !== undefined)('createHandleStore on the Redis backend', () => {
  let redis: RedisServer;
  const backends: HandleStoreBackend[] = [];
  const makeBackend = (): HandleStoreBackend => {
    const backend = createRedisHandleBackend({ url: redis.url, timeoutMs: 2_000 });
    backends.push(backend);
    return backend;
  };

  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await Promise.all(backends.map((b) => b.close()));
    await redis?.kill();
  });

  storeContract(makeBackend);

  it('shares data and revocations between two stores on one Redis', async () => {
    const binder = createHandleBinder({ keys: KEY, audience: 'notes' });
    const a = createHandleStore<string>({ binder, backend: makeBackend() });
    const b = createHandleStore<string>({ binder, backend: makeBackend() });
    const handle = await a.create(ALICE, 'workspace', 'shared');
    expect(await b.get(handle, ALICE, 'workspace')).toBe('shared');
    await b.revoke(handle, ALICE, 'workspace');
    await expectRejected(a.get(handle, ALICE, 'workspace'), 'revoked');
  });

  it('keeps a handle\u2019s data in Redis until the handle expires, and no longer', async () => {
    // Redis counts the lifetime down itself: the TTL sent must be what is left, never more.
    const at = 1_800_000_000_000;
    const backend = createRedisHandleBackend({ url: redis.url, prefix: 'ttl:', now: () => at });
    backends.push(backend);
    const probe = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
    try {
      await backend.set('live', 'data', at + 10_000);
      const left = await probe.pttl('ttl:live');
      expect(left).toBeGreaterThan(0);
      expect(left).toBeLessThanOrEqual(10_000);
      // Already expired when stored: kept for the shortest time Redis allows, not forever.
      await backend.set('dead', 'data', at - 5_000);
      expect(await probe.pttl('ttl:dead')).toBeLessThanOrEqual(1);
    } finally {
      probe.disconnect();
    }
  });

  it('closes the connection it owns', async () => {
    const backend = createRedisHandleBackend({ url: redis.url, timeoutMs: 2_000 });
    await backend.set('closing', 'data', Date.now() + 10_000);
    expect(await backend.get('closing')).toBe('data');
    await backend.close();
    await expect(backend.get('closing')).rejects.toThrow();
  });

  it('fails closed with reason "store-unavailable" once Redis is gone', async () => {
    const spare = await startRedis();
    try {
      const binder = createHandleBinder({ keys: KEY, audience: 'notes' });
      const backend = createRedisHandleBackend({ url: spare.url, timeoutMs: 500 });
      backends.push(backend);
      const store = createHandleStore<string>({ binder, backend });
      const handle = await store.create(ALICE, 'workspace', 'data');
      await spare.kill();
      await expectRejected(store.get(handle, ALICE, 'workspace'), 'store-unavailable');
    } finally {
      await spare.kill();
    }
  });
});
