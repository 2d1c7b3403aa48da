/**
 * Handles backed by a store: server-side data per handle, and revocation.
 *
 * The store key is `<principal tag>:<handle id>`. The tag is the keyed HMAC the handle already carries,
 * never the principal itself, so a dump of the store names no one; and a handle only ever reaches its
 * entry after the binder has checked principal, kind, audience and expiry.
 */
import { HandleRejectedError } from '../errors.js';
import type { Principal } from '../seal/binding.js';
import type { HandleBinder, HandleClaims, MintOptions } from './handle.js';

/** Where a handle store keeps its entries: memory, Redis, or your own. */
export interface HandleStoreBackend {
  /** Store `value` under `key` until `expiresAtMs`. */
  set(key: string, value: string, expiresAtMs: number): Promise<void>;
  /** The value under `key`, or `undefined` when there is none (never stored, expired, deleted). */
  get(key: string): Promise<string | undefined>;
  /** Delete `key`; resolves `true` when an entry was removed. */
  delete(key: string): Promise<boolean>;
  /** Release connections or timers. */
  close(): Promise<void>;
}

/** Options of {@link createHandleStore}. */
export interface HandleStoreOptions {
  binder: HandleBinder;
  backend: HandleStoreBackend;
  /** Receives backend errors, for the server log; the caller only sees `store-unavailable`. */
  onStoreError?: (error: unknown) => void;
}

/** Handles with server-side data. Every refusal is a `HandleRejectedError`. */
export interface HandleStore<T> {
  /**
   * Mint a handle for `principal` and `kind`, and keep `data` (JSON) for it until it expires. Throws
   * `HandleRejectedError('store-unavailable')` when the backend cannot save it.
   */
  create(
    principal: Principal | undefined,
    kind: string,
    data: T,
    options?: MintOptions,
  ): Promise<string>;
  /** The data of a handle presented by `principal` for `kind`; refused if revoked or unknown. */
  get(handle: unknown, principal: Principal | undefined, kind: string): Promise<T>;
  /** Revoke a handle (only its principal can); resolves `true` when it was still live. */
  revoke(handle: unknown, principal: Principal | undefined, kind: string): Promise<boolean>;
}

/** The backend key of a handle, from its claims. */
export function handleStoreKey(claims: HandleClaims): string {
  return `${claims.principalTag ?? '-'}:${claims.handleId}`;
}

/**
 * Create a store-backed handle API over a binder and a backend.
 *
 * @example
 * const store = createHandleStore<{ title: string }>({
 *   binder: createHandleBinder({ keys, audience: 'notes' }),
 *   backend: createMemoryHandleBackend(),
 * });
 * const workspace = await store.create(principal, 'workspace', { title: 'Q3' });
 * const { title } = await store.get(workspace, principal, 'workspace');
 */
export function createHandleStore<T>(options: HandleStoreOptions): HandleStore<T> {
  const { binder, backend, onStoreError } = options;
  // Fail closed: a store that cannot answer refuses the handle, it never skips the check.
  const guarded = async <R>(work: () => Promise<R>): Promise<R> => {
    try {
      return await work();
    } catch (error) {
      onStoreError?.(error);
      throw new HandleRejectedError('store-unavailable');
    }
  };
  return {
    async create(principal, kind, data, mintOptions) {
      const json = JSON.stringify(data);
      if (json === undefined) throw new TypeError('data must be representable as JSON');
      const { handle, claims } = binder.issue(principal, kind, mintOptions);
      await guarded(() => backend.set(handleStoreKey(claims), json, claims.expiresAt));
      return handle;
    },
    async get(handle, principal, kind) {
      const claims = binder.open(handle, principal, kind);
      const json = await guarded(() => backend.get(handleStoreKey(claims)));
      if (json === undefined) throw new HandleRejectedError('revoked');
      let data: T;
      try {
        data = JSON.parse(json) as T;
      } catch (error) {
        onStoreError?.(error);
        throw new HandleRejectedError('store-unavailable');
      }
      return data;
    },
    async revoke(handle, principal, kind) {
      const claims = binder.open(handle, principal, kind);
      return guarded(() => backend.delete(handleStoreKey(claims)));
    },
  };
}
