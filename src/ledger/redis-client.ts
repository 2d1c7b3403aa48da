/**
 * One Redis connection with bounded commands, shared by the Redis ledger and the Redis handle backend.
 *
 * A guard that waits for Redis forever hangs the request; one that queues commands while offline may
 * answer minutes later, or replay a write after a reconnect. So the client we build has no offline
 * queue, no retried or resent commands, and a command timeout; and every command is also raced
 * against our own timer, which bounds a caller-supplied client too. The callers turn any failure into a
 * refusal (fail closed).
 */
import { Redis } from 'ioredis';
import { positiveOption } from '../seal/checks.js';

/** How to reach Redis: a client you own, or a URL we connect to. */
export interface RedisConnectionOptions {
  /** An ioredis client you created. It is not closed by `close()`. */
  client?: Redis;
  /** `redis://` or `rediss://` URL; we create, configure and own the client. */
  url?: string;
  /** Bound of one command, in milliseconds, connecting included. Default 1000. */
  timeoutMs?: number;
  /** Receives connection errors, for the server log (they are otherwise swallowed). */
  onError?: (error: Error) => void;
}

/** @internal A bounded command runner over one Redis client. */
export interface RedisConnection {
  /** Run one command; rejects on any error or after `timeoutMs`. */
  call(command: string, ...args: (string | number)[]): Promise<unknown>;
  /** Close the client if we created it. */
  close(): Promise<void>;
  /**
   * The ioredis client commands go to (the caller's, or the one we created), for its events: the
   * tests watch its `reconnecting` delays through it. Not part of any public object.
   */
  readonly client: Redis;
}

/** @internal Validate a key prefix (caller's constant). */
export function checkPrefix(prefix: unknown, fallback: string): string {
  const value = prefix ?? fallback;
  if (typeof value !== 'string' || value.length === 0 || value.length > 128) {
    throw new TypeError(`prefix must be a string of 1-128 characters, got ${typeof value}`);
  }
  return value;
}

/** @internal Connect to Redis with bounded, fail-fast commands. */
export function createRedisConnection(options: RedisConnectionOptions): RedisConnection {
  if (typeof options !== 'object' || options === null) throw new TypeError('options are required');
  const timeoutMs = positiveOption('timeoutMs', options.timeoutMs, 1000);
  const { client: given, url } = options;
  if ((given === undefined) === (url === undefined)) {
    throw new TypeError('pass exactly one of client or url');
  }
  // The URL may carry a password: its content never goes into a message.
  if (url !== undefined && (typeof url !== 'string' || !/^rediss?:\/\//.test(url))) {
    throw new TypeError(`url must be a redis:// or rediss:// URL, got ${typeof url}`);
  }
  const owned = given === undefined;
  const client =
    given ??
    new Redis(url as string, {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      // Stryker disable next-line BooleanLiteral: with maxRetriesPerRequest 0, ioredis rejects every command in flight at the close, emptying the very queue it would resend; test/ledger/ledger.test.ts shows nothing is replayed either way.
      autoResendUnfulfilledCommands: false,
      commandTimeout: timeoutMs,
      connectTimeout: timeoutMs,
      // Keep reconnecting in the background, so the guard recovers when Redis comes back.
      retryStrategy: (times) => Math.min(times * 100, 2000),
    });
  if (owned) client.on('error', (error: Error) => options.onError?.(error));
  let connecting: Promise<void> | undefined;

  const bounded = <T>(work: Promise<T>): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('redis command timed out')), timeoutMs);
      work.then(
        (value) => {
          clearTimeout(timer);
          resolve(value);
        },
        (error: unknown) => {
          clearTimeout(timer);
          reject(error);
        },
      );
    });

  return {
    client,
    async call(command, ...args) {
      // A lazy client connects on first use; without an offline queue, commands sent before it is
      // ready fail instead of waiting.
      if (owned && client.status === 'wait') connecting ??= client.connect();
      if (connecting !== undefined && client.status !== 'ready') await bounded(connecting);
      return bounded(client.call(command, args));
    },
    async close() {
      if (!owned) return;
      try {
        await bounded(client.quit());
      } catch {
        client.disconnect();
      }
    },
  };
}
