/**
 * What a handle store does with its backend: the key it stores under, the expiry it passes, the
 * values it refuses, and how the memory and Redis backends answer odd or failing stores (the caller
 * sees `store-unavailable`, the log hook gets the cause). The Redis backend runs here on
 * caller-supplied clients that answer oddly; test/bind/store.test.ts runs it on a real Redis.
 */
import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import {
  createHandleBinder,
  createHandleStore,
  createMemoryHandleBackend,
  HandleRejectedError,
  type HandleStoreBackend,
} from '../../src/index.js';
import { createRedisHandleBackend } from '../../src/redis.js';

const KEY = 'k'.repeat(32);
const ALICE = 'alice';
const BOB = 'bob';
const AT = 1_800_000_000_000;

const binder = createHandleBinder({
  keys: KEY,
  audience: 'notes',
  allowAnonymous: true,
  now: () => AT,
});

async function reasonOf(work: Promise<unknown>): Promise<string> {
  try {
    await work;
  } catch (error) {
    if (error instanceof HandleRejectedError) return error.reason;
    throw error;
  }
  return 'answered';
}

/** A backend of your own, as the store's interface allows, that records what it is asked. */
function recordingBackend() {
  const entries = new Map<string, string>();
  const sets: [string, string, number][] = [];
  const backend: HandleStoreBackend = {
    async set(key, value, expiresAtMs) {
      sets.push([key, value, expiresAtMs]);
      entries.set(key, value);
    },
    get: async (key) => entries.get(key),
    delete: async (key) => entries.delete(key),
    async close() {},
  };
  return { backend, entries, sets };
}

describe('createHandleStore', () => {
  it('stores under "<principal tag>:<handle id>", or "-:<handle id>" without a principal, until expiry', async () => {
    const { backend, sets } = recordingBackend();
    const store = createHandleStore<{ title: string }>({ binder, backend });
    const bound = await store.create(ALICE, 'workspace', { title: 'Q3' }, { ttlSeconds: 30 });
    const anonymous = await store.create(undefined, 'workspace', { title: 'Q4' });
    const boundClaims = binder.open(bound, ALICE, 'workspace');
    const anonymousClaims = binder.open(anonymous, undefined, 'workspace');
    expect(sets).toEqual([
      [`${boundClaims.principalTag}:${boundClaims.handleId}`, '{"title":"Q3"}', AT + 30_000],
      [`-:${anonymousClaims.handleId}`, '{"title":"Q4"}', AT + 3600_000],
    ]);
    expect(await store.get(anonymous, undefined, 'workspace')).toEqual({ title: 'Q4' });
  });

  it('refuses data JSON cannot carry, before minting', async () => {
    const { backend, sets } = recordingBackend();
    const store = createHandleStore<unknown>({ binder, backend });
    for (const data of [undefined, () => 1, Symbol('x')]) {
      await expect(store.create(ALICE, 'workspace', data)).rejects.toThrow(
        new TypeError('data must be representable as JSON'),
      );
    }
    expect(sets).toEqual([]);
  });

  it('answers store-unavailable, and logs the parse error, for stored data that is not JSON', async () => {
    const { backend, entries } = recordingBackend();
    const logged: unknown[] = [];
    const store = createHandleStore<unknown>({
      binder,
      backend,
      onStoreError: (e) => logged.push(e),
    });
    const handle = await store.create(ALICE, 'workspace', 'data');
    for (const key of entries.keys()) entries.set(key, '{not json');
    expect(await reasonOf(store.get(handle, ALICE, 'workspace'))).toBe('store-unavailable');
    expect(logged).toHaveLength(1);
    expect(logged[0]).toBeInstanceOf(SyntaxError);
  });

  it('answers store-unavailable for stored data that is not JSON without a log hook too', async () => {
    const { backend, entries } = recordingBackend();
    const store = createHandleStore<unknown>({ binder, backend });
    const handle = await store.create(ALICE, 'workspace', 'data');
    for (const key of entries.keys()) entries.set(key, '{not json');
    expect(await reasonOf(store.get(handle, ALICE, 'workspace'))).toBe('store-unavailable');
  });

  it('answers whether a revoke removed a live entry', async () => {
    const { backend } = recordingBackend();
    const store = createHandleStore<string>({ binder, backend });
    const handle = await store.create(ALICE, 'workspace', 'data');
    expect(await store.revoke(handle, ALICE, 'workspace')).toBe(true);
    expect(await store.revoke(handle, ALICE, 'workspace')).toBe(false);
  });
});

describe('createMemoryHandleBackend', () => {
  it('fails a write when full of live entries, with a cause for the log', async () => {
    const logged: unknown[] = [];
    const store = createHandleStore<string>({
      binder,
      backend: createMemoryHandleBackend({ maxEntries: 1 }),
      onStoreError: (e) => logged.push(e),
    });
    await store.create(ALICE, 'workspace', 'first');
    expect(await reasonOf(store.create(ALICE, 'workspace', 'second'))).toBe('store-unavailable');
    expect(logged).toEqual([new Error('memory handle backend is full')]);
  });

  it('refuses a principal past its quota of live handles, and no other principal', async () => {
    let at = AT;
    const logged: unknown[] = [];
    const timed = createHandleBinder({ keys: 'k'.repeat(32), audience: 'notes', now: () => at });
    const store = createHandleStore<string>({
      binder: timed,
      backend: createMemoryHandleBackend({
        maxEntries: 5,
        maxEntriesPerPrincipal: 2,
        now: () => at,
      }),
      onStoreError: (e) => logged.push(e),
    });
    const first = await store.create(ALICE, 'workspace', 'a1');
    await store.create(ALICE, 'workspace', 'a2', { ttlSeconds: 10 });
    expect(await reasonOf(store.create(ALICE, 'workspace', 'a3'))).toBe('store-unavailable');
    expect(logged).toEqual([
      new Error('memory handle backend: this principal holds its quota of live entries'),
    ]);
    // Alice cannot fill the backend: Bob still mints, and Alice's handles still open.
    const bob = await store.create(BOB, 'workspace', 'b1');
    expect(await store.get(bob, BOB, 'workspace')).toBe('b1');
    expect(await store.get(first, ALICE, 'workspace')).toBe('a1');
    // A revoked or expired handle frees its place in the quota.
    await store.revoke(first, ALICE, 'workspace');
    await store.create(ALICE, 'workspace', 'a3');
    at += 10_000;
    await store.create(ALICE, 'workspace', 'a4');
    expect(await reasonOf(store.create(ALICE, 'workspace', 'a5'))).toBe('store-unavailable');
  });

  it('refuses a quota that is not a count of at least one, naming its type', () => {
    expect(() => createMemoryHandleBackend({ maxEntriesPerPrincipal: 0 })).toThrow(
      new RangeError('maxEntriesPerPrincipal must be a finite number of at least 1, got number'),
    );
  });

  it('keeps entries on the clock it is given', async () => {
    let at = AT;
    const backend = createMemoryHandleBackend({ now: () => at });
    await backend.set('key', 'value', AT + 1_000);
    at += 999;
    expect(await backend.get('key')).toBe('value');
    at += 1;
    expect(await backend.get('key')).toBeUndefined();
  });

  it('keeps up to 100000 live entries by default', async () => {
    const backend = createMemoryHandleBackend({ now: () => AT });
    for (let i = 0; i < 100_000; i += 1) await backend.set(`k${i}`, 'v', AT + 1_000);
    await expect(backend.set('one more', 'v', AT + 1_000)).rejects.toThrow(
      new Error('memory handle backend is full'),
    );
  });
});

describe('createRedisHandleBackend on a client that answers oddly', () => {
  /** A caller-supplied client whose every command resolves to `reply`. */
  const answering = (reply: unknown) =>
    ({ status: 'ready', call: () => Promise.resolve(reply) }) as unknown as Redis;

  it.each([
    ['SET', 'QUEUED', (b: HandleStoreBackend) => b.set('key', 'value', Date.now() + 1_000)],
    ['GET', 5, (b: HandleStoreBackend) => b.get('key')],
    ['DEL', 'OK', (b: HandleStoreBackend) => b.delete('key')],
  ])('fails a %s answered %j with a clear cause', async (command, reply, work) => {
    await expect(work(createRedisHandleBackend({ client: answering(reply) }))).rejects.toThrow(
      new Error(`unexpected reply to ${command}`),
    );
  });

  it('reads a stored value whether the client answers text or bytes, and nothing for null', async () => {
    expect(await createRedisHandleBackend({ client: answering('text') }).get('k')).toBe('text');
    const bytes = createRedisHandleBackend({ client: answering(Buffer.from('bytes')) });
    expect(await bytes.get('k')).toBe('bytes');
    expect(await createRedisHandleBackend({ client: answering(null) }).get('k')).toBeUndefined();
  });

  it('answers a delete from the number of keys Redis removed', async () => {
    expect(await createRedisHandleBackend({ client: answering(1) }).delete('k')).toBe(true);
    expect(await createRedisHandleBackend({ client: answering(0) }).delete('k')).toBe(false);
  });

  it('sends the lifetime left on its own clock, and its own prefix', async () => {
    const sent: unknown[][] = [];
    const client = {
      status: 'ready',
      call: (command: string, args: unknown[]) => {
        sent.push([command, ...args]);
        return Promise.resolve('OK');
      },
    } as unknown as Redis;
    await createRedisHandleBackend({ client, now: () => AT }).set('key', 'value', AT + 1_500);
    await createRedisHandleBackend({ client, prefix: 'app:', now: () => AT }).set('k', 'v', AT);
    expect(sent).toEqual([
      ['SET', 'stateguard:handle:key', 'value', 'PX', 1_500],
      ['SET', 'app:k', 'v', 'PX', 1],
    ]);
  });
});
