/**
 * How a guard takes hold of a server: every door through which `tools/call`, `prompts/get` or
 * `resources/read` can reach a handler goes through the guard.
 *
 * The SDK dispatches a request to the handler registered for its method, or else to the public
 * `fallbackRequestHandler`. Wrapping `setRequestHandler` alone would leave the fallback as a side
 * door: a state sealed nowhere, opened nowhere, forged plaintext handed to the handler as is. So
 * the fallback is guarded too, whenever it is set, before or after `protect()`.
 */
import type { McpServer, Server, ServerContext } from '@modelcontextprotocol/server';
import { GUARDED_METHODS, type GuardedMethod } from './options.js';

/** A server a guard can protect: an `McpServer` or the low-level `Server`. */
export type GuardableServer = McpServer | Server;

/** The request a guarded handler receives (the spec form, or the raw JSON-RPC request). */
export interface GuardedRequest {
  readonly method?: string;
  readonly params?: Record<string, unknown> | undefined;
}
/** A request handler as the SDK calls it. */
export type SpecHandler = (request: GuardedRequest, ctx: ServerContext) => unknown;
/** Wraps the handler of one guarded method. */
export type WrapHandler = (method: GuardedMethod, handler: SpecHandler) => SpecHandler;

type SetRequestHandler = (method: string, handler: unknown, maybeHandler?: unknown) => void;

const GUARDED = new Set<string>(GUARDED_METHODS);

/** The low-level `Server` of an `McpServer` (or the `Server` itself). */
export function lowLevel(server: GuardableServer): Server {
  const inner = (server as { server?: unknown } | null | undefined)?.server;
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

/**
 * A fallback handler whose guarded methods go through the guard; other methods reach it untouched.
 * The wrappers are made once per fallback, not per request.
 */
function guardFallback(fallback: SpecHandler, wrap: WrapHandler): SpecHandler {
  const wrapped = new Map<string, SpecHandler>(
    GUARDED_METHODS.map((method) => [method, wrap(method, fallback)]),
  );
  // Stryker disable next-line StringLiteral: no guarded method is named '' or anything else Stryker puts here, so a request without a method reaches the fallback either way.
  return (request, ctx) => (wrapped.get(request.method ?? '') ?? fallback)(request, ctx);
}

/**
 * Route every guarded method of `low` through `wrap`: the handlers registered from now on with
 * `setRequestHandler`, and the `fallbackRequestHandler`, whether it is already set or set later.
 * Throws `TypeError` if a guarded method already has a handler.
 */
export function hookServer(low: Server, wrap: WrapHandler): void {
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

  // The fallback is a plain public property: replace it with an accessor that guards whatever is
  // assigned, and guard what is already there.
  let fallback: SpecHandler | undefined;
  const setFallback = (handler: unknown): void => {
    if (handler !== undefined && typeof handler !== 'function') {
      throw new TypeError(`fallbackRequestHandler must be a function, got ${typeof handler}`);
    }
    fallback = handler === undefined ? undefined : guardFallback(handler as SpecHandler, wrap);
  };
  setFallback((low as { fallbackRequestHandler?: unknown }).fallbackRequestHandler);
  Object.defineProperty(low, 'fallbackRequestHandler', {
    get: () => fallback,
    set: setFallback,
    configurable: true,
    enumerable: true,
  });
}
