/**
 * Options of a state guard, and the checks made once, when the guard is created.
 */
import { randomBytes } from 'node:crypto';
import type { StateRejection } from '../errors.js';
import type { SingleUseLedger } from '../ledger/types.js';
import type { KeysInput } from '../seal/key.js';
import type { PrincipalResolver } from './principal.js';

/** The transports a guard can serve. */
export const GUARD_TRANSPORTS = ['stdio', 'http'] as const;
/** How the guarded server is reached; decides the default principal and the key policy. */
export type GuardTransport = (typeof GUARD_TRANSPORTS)[number];

/** The methods whose `requestState` a guard seals and opens (the only ones MRTR allows). */
export const GUARDED_METHODS = ['tools/call', 'prompts/get', 'resources/read'] as const;
/** One of {@link GUARDED_METHODS}. */
export type GuardedMethod = (typeof GUARDED_METHODS)[number];

/** What the logger hook learns about a refused round. Never the token, state or principal. */
export interface StateRejectEvent {
  /** Why, from the closed vocabulary. */
  readonly reason: StateRejection;
  readonly method: GuardedMethod;
  /** The tool or prompt name, or the resource URI. */
  readonly name: string | undefined;
}

/** Single-use enforcement for chosen tools. */
export interface SingleUseOptions {
  /** Shared storage of consumed token ids. */
  ledger: SingleUseLedger;
  /** The tools whose every `requestState` opens at most once: names, or a predicate on the name. */
  tools: readonly string[] | ((name: string) => boolean);
}

/** Options of {@link createStateGuard}. */
export interface StateGuardOptions {
  /** How the server is reached. Required, so an HTTP server never inherits stdio's laxer defaults. */
  transport: GuardTransport;
  /**
   * One secret (≥ 32 bytes) or a ring: the first seals, every one opens. Share them across every
   * instance that may serve a retry. Without keys, stdio uses a per-process random key; HTTP
   * refuses unless `allowEphemeralKey` is set.
   */
  keys?: KeysInput | undefined;
  /** Let an HTTP server run on a per-process random key (one instance only, flows die on restart). */
  allowEphemeralKey?: boolean;
  /** The server's name: a state sealed for one audience never opens for another sharing the key. */
  audience: string;
  /** Lifetime of one round, restarted each round. Default 600. */
  ttlSeconds?: number;
  /** Absolute deadline of a whole flow, carried from round to round. Default 3600. */
  flowTtlSeconds?: number;
  /** Tokens longer than this are refused before any decoding. Default 8192. */
  maxTokenBytes?: number;
  /**
   * The largest arguments (of `tools/call` and `prompts/get`) the guard digests, in characters of
   * their JSON text. Larger ones are refused with the frozen `-32602` (reason
   * `arguments-too-large`) before any handler runs, on every guarded call: the guard cannot know
   * before the handler runs whether it will seal. Default 65536; `Infinity` turns the cap off.
   */
  maxArgumentBytes?: number;
  /** Clock in milliseconds, like `Date.now` (tests move it). */
  now?: () => number;
  /**
   * Finds the principal of a request, on every transport. Default `httpPrincipal`: the
   * verified bearer token's client id, issuer and subject (a token without subject and issuer is
   * refused); none for a request without a verified token, which is every stdio request. A stdio
   * server that tells its callers apart must pass one.
   */
  principal?: PrincipalResolver;
  /** Logger hook for refused rounds. Exceptions it throws are ignored. */
  onReject?: (event: StateRejectEvent) => void;
  /** Refuse a replayed round of the chosen tools. */
  singleUse?: SingleUseOptions;
}

/** The keys to seal with, or a per-process random key where that is allowed. */
export function resolveKeys(options: StateGuardOptions): { keys: KeysInput; ephemeral: boolean } {
  const { keys, transport } = options;
  if (!(GUARD_TRANSPORTS as readonly unknown[]).includes(transport)) {
    throw new TypeError(`transport must be 'stdio' or 'http', got ${typeof transport}`);
  }
  const configured = Array.isArray(keys) ? keys.length > 0 : keys !== undefined;
  if (configured) return { keys: keys as KeysInput, ephemeral: false };
  // Behind a load balancer every instance would mint its own key and refuse its siblings' flows;
  // a restart would void every flow in flight. Make that a decision, not an accident.
  if (transport === 'http' && options.allowEphemeralKey !== true) {
    throw new TypeError(
      'an HTTP state guard needs keys shared by every instance; pass keys, or allowEphemeralKey: true for a single-process server',
    );
  }
  return { keys: randomBytes(32), ephemeral: true };
}

/** A predicate on tool names from the single-use option. */
export function singleUseTools(option: SingleUseOptions | undefined): (name: string) => boolean {
  if (option === undefined) return () => false;
  if (typeof option.ledger?.consume !== 'function') {
    throw new TypeError(`singleUse.ledger must be a SingleUseLedger, got ${typeof option.ledger}`);
  }
  const { tools } = option;
  if (typeof tools === 'function') return tools;
  if (!Array.isArray(tools)) throw new TypeError(`singleUse.tools must be an array or a function`);
  const names = new Set<string>(tools);
  return (name) => names.has(name);
}
