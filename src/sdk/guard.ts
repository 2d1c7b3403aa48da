/**
 * The state guard: plugs the sealer into an SDK server so handlers read and return plaintext
 * `requestState`, while the client only ever holds sealed tokens.
 *
 * The seam is the low-level `Server`'s handler for `tools/call`, `prompts/get` and
 * `resources/read`. The SDK's own `requestState.verify` hook runs earlier, but it cannot see the
 * tool name or the arguments, and a throw from inside a tool callback becomes an `isError` result
 * rather than a protocol error. Wrapping the method handler sees the whole request and answers with
 * a real JSON-RPC error, before `McpServer` looks the tool up.
 */
import type { McpServer, Server, ServerContext } from '@modelcontextprotocol/server';
import { isInputRequiredResult } from '@modelcontextprotocol/server';
import { StateRejectedError, type StateRejection } from '../errors.js';
import type { StateBinding } from '../seal/binding.js';
import { createStateSealer, type StateClaims } from '../seal/seal.js';
import {
  GUARDED_METHODS,
  resolveKeys,
  singleUseTools,
  type GuardedMethod,
  type GuardTransport,
  type StateGuardOptions,
} from './options.js';
import { httpPrincipal, noPrincipal } from './principal.js';
import { internalError, invalidStateError } from './wire.js';

/** A server a guard can protect: an `McpServer` or the low-level `Server`. */
export type GuardableServer = McpServer | Server;

/** A configured guard. Create it once per process; protect every server the factory builds. */
export interface StateGuard {
  readonly transport: GuardTransport;
  /** Whether the guard seals with a per-process random key (no `keys` configured). */
  readonly ephemeralKey: boolean;
  /**
   * Guard this server: every `requestState` it hands out is sealed, every one it receives is opened
   * before any handler runs. Call it before registering tools, prompts or resources. Returns the
   * same instance.
   */
  protect<S extends GuardableServer>(server: S): S;
}

type Params = Record<string, unknown> | undefined;
type SpecHandler = (request: { params?: Params }, ctx: ServerContext) => unknown;
type SetRequestHandler = (method: string, handler: unknown, maybeHandler?: unknown) => void;

const GUARDED = new Set<string>(GUARDED_METHODS);
/** Which guard owns a server, so protecting twice never seals twice. */
const OWNER = new WeakMap<object, StateGuard>();

function lowLevel(server: GuardableServer): Server {
  const inner = (server as { server?: unknown }).server;
  const low = (inner ?? server) as Server;
  if (typeof low?.setRequestHandler !== 'function') {
    throw new TypeError(`server must be an McpServer or a Server, got ${typeof server}`);
  }
  return low;
}

/** Which `McpServer` capability registers the handler of a guarded method. */
const FAMILY: Record<GuardedMethod, string> = {
  'tools/call': 'tools',
  'prompts/get': 'prompts',
  'resources/read': 'resources',
};

/**
 * What to do when a guarded method already has a handler. There is no supported way to wrap a
 * handler the SDK has stored: it is kept already wrapped in the SDK's own request validation and
 * input-required checks, so wrapping it again would run those twice, the inner ones on plaintext.
 * The handler has to be registered after `protect()` instead.
 */
function alreadyRegistered(method: GuardedMethod): string {
  const family = FAMILY[method];
  return (
    `protect() must run before the server has a ${method} handler. McpServer registers it with ` +
    `the first ${family.slice(0, -1)}, and at once when constructed with capabilities.${family}. ` +
    `Create the server without capabilities.${family}, call guard.protect(server), then register ` +
    `${family}: McpServer declares the capability itself. To declare it before any is registered ` +
    `(or to set listChanged), call server.server.registerCapabilities({ ${family}: {…} }) after ` +
    `protect().`
  );
}

function bindingOf(method: GuardedMethod, params: Params): Omit<StateBinding, 'principal'> {
  if (method === 'resources/read') {
    return { method, name: typeof params?.['uri'] === 'string' ? params['uri'] : undefined };
  }
  const name = typeof params?.['name'] === 'string' ? params['name'] : undefined;
  return { method, name, args: params?.['arguments'] };
}

function withState(ctx: ServerContext, state: unknown): ServerContext {
  const requestState = (() => state) as ServerContext['mcpReq']['requestState'];
  return { ...ctx, mcpReq: { ...ctx.mcpReq, requestState } };
}

/**
 * Create a state guard.
 *
 * Rejections answer `-32602 Invalid or expired requestState` (the client's fault: tampered,
 * expired, foreign, replayed); failures of the server itself (a ledger that cannot answer, a
 * principal resolver that throws) answer `-32603 Internal error`. Both refuse the request.
 *
 * @example
 * const guard = createStateGuard({ transport: 'http', keys: [secret], audience: 'reports' });
 * const handler = createMcpHandler(() => buildServer(guard)); // buildServer calls guard.protect first
 */
export function createStateGuard(options: StateGuardOptions): StateGuard {
  if (typeof options !== 'object' || options === null) throw new TypeError('options are required');
  const { keys, ephemeral } = resolveKeys(options);
  const sealer = createStateSealer({
    keys,
    audience: options.audience,
    ttlSeconds: options.ttlSeconds,
    flowTtlSeconds: options.flowTtlSeconds,
    maxTokenBytes: options.maxTokenBytes,
    now: options.now,
  });
  const resolvePrincipal =
    options.principal ?? (options.transport === 'http' ? httpPrincipal : noPrincipal);
  const isSingleUse = singleUseTools(options.singleUse);
  const ledger = options.singleUse?.ledger;

  const report = (reason: StateRejection, binding: StateBinding): void => {
    try {
      options.onReject?.({ reason, method: binding.method as GuardedMethod, name: binding.name });
    } catch {
      // A failing logger must not change the answer.
    }
  };

  /** Opens an echoed state, or throws the wire error. Nothing of the token reaches the hook. */
  const open = async (raw: unknown, binding: StateBinding) => {
    let opened;
    try {
      opened = sealer.open(raw, binding);
    } catch (error) {
      if (!(error instanceof StateRejectedError)) throw internalError();
      report(error.reason, binding);
      throw invalidStateError();
    }
    if (binding.method === 'tools/call' && ledger && isSingleUse(binding.name ?? '')) {
      let first: boolean;
      try {
        // Keyed on the random id inside the ciphertext, never on the token text: a re-encoded copy
        // of a token cannot dodge the ledger (the sealer refuses re-encodings anyway).
        first = await ledger.consume(opened.claims.tokenId, opened.claims.expiresAt);
      } catch {
        // Fail closed: a ledger that cannot answer must not turn single-use into many-use.
        report('ledger-unavailable', binding);
        throw internalError();
      }
      if (!first) {
        report('replayed', binding);
        throw invalidStateError();
      }
    }
    return opened;
  };

  const wrap = (method: GuardedMethod, handler: SpecHandler): SpecHandler => {
    return async (request, ctx) => {
      // Only a stdio guard may run on a random key; an HTTP request reaching one is a deployment
      // error that would break every flow crossing instances. Refuse rather than limp along.
      if (ephemeral && options.transport === 'stdio' && ctx.http !== undefined)
        throw internalError();
      let principal;
      try {
        principal = resolvePrincipal(ctx);
      } catch {
        throw internalError();
      }
      const binding: StateBinding = { ...bindingOf(method, request.params), principal };
      const raw = ctx.mcpReq.requestState();
      let continues: StateClaims | undefined;
      let handlerCtx = ctx;
      if (raw !== undefined) {
        const opened = await open(raw, binding);
        continues = opened.claims;
        handlerCtx = withState(ctx, opened.state);
      }
      const result = await handler(request, handlerCtx);
      if (!isInputRequiredResult(result) || result.requestState === undefined) return result;
      let sealed: string;
      try {
        sealed = sealer.seal(result.requestState, binding, { continues });
      } catch {
        throw internalError();
      }
      return { ...result, requestState: sealed };
    };
  };

  const guard: StateGuard = {
    transport: options.transport,
    ephemeralKey: ephemeral,
    protect(server) {
      const low = lowLevel(server);
      const owner = OWNER.get(low);
      if (owner === guard) return server;
      if (owner !== undefined) throw new TypeError('server is already protected by another guard');
      for (const method of GUARDED_METHODS) {
        try {
          low.assertCanSetRequestHandler(method);
        } catch {
          // An unwrapped handler would pass sealed tokens to the handler and plaintext to the client.
          throw new TypeError(alreadyRegistered(method));
        }
      }
      const original = low.setRequestHandler.bind(low) as SetRequestHandler;
      const guarded: SetRequestHandler = (method, handler, maybeHandler) => {
        if (!GUARDED.has(method)) return original(method, handler, maybeHandler);
        if (maybeHandler !== undefined || typeof handler !== 'function') {
          throw new TypeError(`a guarded server registers ${method} with the spec handler form`);
        }
        return original(method, wrap(method as GuardedMethod, handler as SpecHandler));
      };
      Object.defineProperty(low, 'setRequestHandler', {
        value: guarded,
        configurable: true,
        writable: true,
      });
      OWNER.set(low, guard);
      return server;
    },
  };
  return guard;
}
