/**
 * The state guard: plugs the sealer into an SDK server so handlers read and return plaintext
 * `requestState`, while the client only ever holds sealed tokens.
 *
 * The seam is the low-level `Server`'s handler for `tools/call`, `prompts/get` and
 * `resources/read` (and its fallback handler, see protect.ts). The SDK's own `requestState.verify`
 * hook runs earlier, but it cannot see the tool name or the arguments, and a throw from inside a
 * tool callback becomes an `isError` result rather than a protocol error. Wrapping the method
 * handler sees the whole request and answers with a real JSON-RPC error, before `McpServer` looks
 * the tool up.
 *
 * Every refusal goes through one function: it calls `onReject` exactly once with a reason and
 * answers the wire error that reason maps to (the frozen `-32602` for anything the client sent,
 * `-32603` for the server's own faults). Everything that can fail on the client's data (principal,
 * arguments, clock) is settled before the handler runs, so nothing fails after a side effect
 * except a state the handler itself cannot hand out.
 */
import type { ServerContext } from '@modelcontextprotocol/server';
import { isInputRequiredResult } from '@modelcontextprotocol/server';
import { StateRejectedError, type StateRejection } from '../errors.js';
import type { Principal, StateBinding } from '../seal/binding.js';
import { readClock } from '../seal/clock.js';
import {
  createStateSealer,
  type OpenedState,
  type PreparedBinding,
  type StateClaims,
  type StateSealer,
} from '../seal/seal.js';
import { jsonSizeWithin, maxArgumentBytesOption } from './arguments.js';
import {
  resolveKeys,
  singleUseTools,
  type GuardedMethod,
  type GuardTransport,
  type SingleUseOptions,
  type StateGuardOptions,
} from './options.js';
import { httpPrincipal, PrincipalUnavailableError, type PrincipalResolver } from './principal.js';
import {
  hookServer,
  lowLevel,
  type GuardableServer,
  type GuardedRequest,
  type SpecHandler,
} from './protect.js';
import { refusalError } from './wire.js';

export type { GuardableServer } from './protect.js';

/** A configured guard. Create it once per process; protect every server the factory builds. */
export interface StateGuard {
  readonly transport: GuardTransport;
  /** Whether the guard seals with a per-process random key (no `keys` configured). */
  readonly ephemeralKey: boolean;
  /**
   * Guard this server: every `requestState` it hands out is sealed, every one it receives is opened
   * before any handler runs, whether the handler is registered with `setRequestHandler` (as
   * `McpServer` does) or is the server's `fallbackRequestHandler`. Call it before registering
   * tools, prompts or resources. Returns the same instance.
   */
  protect<S extends GuardableServer>(server: S): S;
}

/** Which guard owns a server, so protecting twice never seals twice. */
const OWNER = new WeakMap<object, StateGuard>();

/** What a guarded request is bound to, apart from the principal. */
function bindingOf(method: GuardedMethod, params: GuardedRequest['params']): StateBinding {
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

/** What every guarded request of one guard shares: its sealer, its options and its resolvers. */
interface GuardCore {
  readonly options: StateGuardOptions;
  readonly sealer: StateSealer;
  readonly ephemeral: boolean;
  readonly now: () => number;
  readonly maxArgumentBytes: number;
  readonly resolvePrincipal: PrincipalResolver;
  readonly isSingleUse: (name: string) => boolean;
  readonly ledger: SingleUseOptions['ledger'] | undefined;
  /** One line on stderr per cause and guard: a deployment error, not a per-request event. */
  readonly warnOnce: (line: string) => void;
}

/**
 * Create a state guard.
 *
 * Rejections answer `-32602 Invalid or expired requestState` (the client's fault: tampered,
 * expired, foreign, replayed, arguments too large or not canonical JSON); failures of the server
 * itself (a ledger that cannot answer, a principal that cannot be resolved, a clock with no usable
 * time) answer `-32603 Internal error`. Both refuse the request, and both call `onReject` once.
 *
 * @example
 * const guard = createStateGuard({ transport: 'http', keys: [secret], audience: 'reports' });
 * const handler = createMcpHandler(() => buildServer(guard)); // buildServer calls guard.protect first
 */
export function createStateGuard(options: StateGuardOptions): StateGuard {
  const core = createGuardCore(options);
  const wrap = (method: GuardedMethod, handler: SpecHandler): SpecHandler =>
    guardHandler(core, method, handler);
  const guard: StateGuard = {
    transport: options.transport,
    ephemeralKey: core.ephemeral,
    protect(server) {
      const low = lowLevel(server);
      const owner = OWNER.get(low);
      if (owner === guard) return server;
      if (owner !== undefined) throw new TypeError('server is already protected by another guard');
      hookServer(low, wrap);
      OWNER.set(low, guard);
      return server;
    },
  };
  return guard;
}

/** Checks the options (TypeError, RangeError) and builds the sealer. */
function createGuardCore(options: StateGuardOptions): GuardCore {
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
  const now = options.now ?? Date.now;
  const maxArgumentBytes = maxArgumentBytesOption(options.maxArgumentBytes);
  const warned = new Set<string>();
  return {
    options,
    sealer,
    ephemeral,
    now,
    maxArgumentBytes,
    // One default for both transports: the verified bearer token if the request has one. A guard
    // created for stdio and served over HTTP binds the token like an HTTP guard would.
    resolvePrincipal: options.principal ?? httpPrincipal,
    isSingleUse: singleUseTools(options.singleUse),
    ledger: options.singleUse?.ledger,
    warnOnce: (line) => {
      if (warned.has(line)) return;
      warned.add(line);
      console.warn(line);
    },
  };
}

/** The wrapped handler: bind, open the echoed state, run the handler, seal the state it returns. */
function guardHandler(core: GuardCore, method: GuardedMethod, handler: SpecHandler): SpecHandler {
  return async (request, ctx) => {
    const binding = bindRequest(core, method, request, ctx);
    const raw = ctx.mcpReq.requestState();
    let continues: StateClaims | undefined;
    let handlerCtx = ctx;
    if (raw !== undefined) {
      const opened = await openEchoed(core, raw, binding);
      continues = opened.claims;
      handlerCtx = withState(ctx, opened.state);
    }
    const result = await handler(request, handlerCtx);
    if (!isInputRequiredResult(result) || result.requestState === undefined) return result;
    let sealed: string;
    try {
      sealed = core.sealer.seal(result.requestState, binding, { continues });
    } catch {
      // The binding and the clock were checked before the handler ran; what is left is a state
      // the handler returned that JSON cannot carry (or a clock that broke meanwhile).
      throw refuse(core, 'unsealable', binding);
    }
    return { ...result, requestState: sealed };
  };
}

/** Log the refusal once, and return the wire error to throw. Nothing of the token reaches the hook. */
function refuse(core: GuardCore, reason: StateRejection, binding: StateBinding): Error {
  try {
    // Stryker disable next-line OptionalChaining: without a hook the TypeError the call would throw is swallowed by the catch below, like any failing hook.
    core.options.onReject?.({
      reason,
      method: binding.method as GuardedMethod,
      name: binding.name,
    });
  } catch {
    // A failing logger must not change the answer.
  }
  return refusalError(reason);
}

/** Opens an echoed state (and spends it, for a single-use tool), or throws the wire error. */
async function openEchoed(
  core: GuardCore,
  raw: unknown,
  binding: PreparedBinding,
): Promise<OpenedState> {
  let opened: OpenedState;
  try {
    opened = core.sealer.open(raw, binding);
  } catch (error) {
    // Whatever open throws on client data is a rejection with the frozen answer: a different
    // error would tell the client how far its token got.
    throw refuse(core, error instanceof StateRejectedError ? error.reason : 'request', binding);
  }
  const { ledger } = core;
  if (binding.method === 'tools/call' && ledger && core.isSingleUse(binding.name ?? ''))
    await spendOnce(core, ledger, opened.claims, binding);
  return opened;
}

/** A single-use tool's token: spent in the ledger now, or refused as replayed. */
async function spendOnce(
  core: GuardCore,
  ledger: NonNullable<GuardCore['ledger']>,
  claims: StateClaims,
  binding: PreparedBinding,
): Promise<void> {
  // The lifetime left, measured on the clock that just judged the token live; the ledger
  // counts it down on its own clock, so the two clocks are never compared.
  const at = readClock(core.now);
  if (at === undefined) throw refuse(core, 'clock-unavailable', binding);
  const ttlMs = claims.expiresAt - at;
  if (ttlMs <= 0) throw refuse(core, 'expired', binding);
  let first: boolean;
  try {
    // Keyed on the random id inside the ciphertext, never on the token text: a re-encoded copy
    // of a token cannot dodge the ledger (the sealer refuses re-encodings anyway).
    // The token's age lets a shared ledger that lost its memory refuse exactly the tokens
    // issued before the loss, which it can no longer tell used from unused.
    first = await ledger.consume(claims.tokenId, ttlMs, at - claims.issuedAt);
  } catch {
    // Fail closed: a ledger that cannot answer must not turn single-use into many-use.
    throw refuse(core, 'ledger-unavailable', binding);
  }
  if (!first) throw refuse(core, 'replayed', binding);
}

/** The request's binding, settled before any handler runs, or the wire error. */
function bindRequest(
  core: GuardCore,
  method: GuardedMethod,
  request: GuardedRequest,
  ctx: ServerContext,
): PreparedBinding {
  const unbound = bindingOf(method, request.params);
  // Only a stdio guard may run on a random key; an HTTP request reaching one is a deployment
  // error that would break every flow crossing instances. Refuse rather than limp along.
  if (core.ephemeral && core.options.transport === 'stdio' && ctx.http !== undefined) {
    throw refuse(core, 'ephemeral-key', unbound);
  }
  let principal: Principal | undefined;
  try {
    principal = core.resolvePrincipal(ctx);
  } catch (error) {
    // A token the library's resolvers cannot bind is a deployment error: say once, in one line,
    // what is missing and which option fixes it. The client still sees only -32603.
    if (error instanceof PrincipalUnavailableError) core.warnOnce(error.message);
    throw refuse(core, 'principal-unavailable', unbound);
  }
  // Measured before digesting: the digest's cost grows with the arguments, the walk stops at
  // the cap.
  if (!jsonSizeWithin(unbound.args, core.maxArgumentBytes)) {
    throw refuse(core, 'arguments-too-large', unbound);
  }
  let binding: PreparedBinding;
  try {
    binding = core.sealer.prepare({ ...unbound, principal });
  } catch (error) {
    // Stryker disable next-line StringLiteral: prepare on a binding built here throws only StateRejectedError (method and name are always strings), so the fallback reason is never used.
    throw refuse(core, error instanceof StateRejectedError ? error.reason : 'request', unbound);
  }
  // A clock with no usable time could neither open nor seal: find out before the handler runs.
  if (readClock(core.now) === undefined) throw refuse(core, 'clock-unavailable', binding);
  return binding;
}
