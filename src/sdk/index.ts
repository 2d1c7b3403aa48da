/**
 * stateguard/sdk: seal `requestState` inside servers built on the official MCP TypeScript SDK
 * (`@modelcontextprotocol/server` 2.4). Every public export, by name.
 */
export { createStateGuard, type StateGuard, type GuardableServer } from './guard.js';
export {
  GUARD_TRANSPORTS,
  GUARDED_METHODS,
  type GuardTransport,
  type GuardedMethod,
  type StateGuardOptions,
  type StateRejectEvent,
  type SingleUseOptions,
} from './options.js';
export {
  PRINCIPAL_META_KEY,
  principalFromAuthInfo,
  principalFromMeta,
  httpPrincipal,
  principalFromClientIdOnly,
  noPrincipal,
  type PrincipalResolver,
} from './principal.js';
export { INVALID_STATE_MESSAGE, INTERNAL_ERROR_MESSAGE } from './wire.js';
