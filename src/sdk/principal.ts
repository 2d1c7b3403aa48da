/**
 * Where a guarded server finds the principal a `requestState` is bound to.
 *
 * HTTP: the bearer token the SDK verified (`ctx.http.authInfo`). stdio: nothing on the wire carries
 * a principal (the spec says stdio servers take credentials from their environment), so the default
 * is none and the caller supplies a resolver.
 */
import type { AuthInfo, ServerContext } from '@modelcontextprotocol/server';
import type { Principal } from '../seal/binding.js';

/** Finds the principal of one request; `undefined` means an unauthenticated request. */
export type PrincipalResolver = (ctx: ServerContext) => Principal | undefined;

/**
 * The `_meta` key some test harnesses and fixtures use to name a principal over stdio. It is not
 * part of the MCP specification.
 */
export const PRINCIPAL_META_KEY = 'io.modelcontextprotocol/principal';

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

/**
 * The principal of a verified access token: client id, issuer and subject. `AuthInfo` has no issuer
 * or subject fields, so they are read from `extra.iss` / `extra.sub` (or `extra.issuer` /
 * `extra.subject`), which the token verifier should fill. Binding the subject matters: many users
 * share one OAuth client id, and a state bound to the client alone would open for all of them.
 */
export function principalFromAuthInfo(authInfo: AuthInfo | undefined): Principal | undefined {
  if (authInfo === undefined) return undefined;
  const extra = authInfo.extra ?? {};
  const clientId = text(authInfo.clientId);
  const issuer = text(extra['iss']) ?? text(extra['issuer']);
  const subject = text(extra['sub']) ?? text(extra['subject']);
  if (clientId === undefined && issuer === undefined && subject === undefined) return undefined;
  return { clientId, issuer, subject };
}

/**
 * The default HTTP resolver: the principal of `ctx.http.authInfo` if the request was verified, none if
 * it was not. A verified token that names no client, issuer or subject throws (the guard answers
 * `-32603`): sealing for nobody would let every holder of a valid token replay every other user's
 * state, so a verifier that fills none of those fields is a configuration error, not an anonymous
 * request.
 */
export const httpPrincipal: PrincipalResolver = (ctx) => {
  const authInfo = ctx.http?.authInfo;
  if (authInfo === undefined) return undefined;
  const principal = principalFromAuthInfo(authInfo);
  if (principal === undefined) {
    throw new TypeError('the verified access token names no client id, issuer or subject');
  }
  return principal;
};

/** The default stdio resolver: no principal. */
export const noPrincipal: PrincipalResolver = () => undefined;

/**
 * A resolver that reads the principal from a request `_meta` key (default
 * {@link PRINCIPAL_META_KEY}). The SDK passes non-reserved `_meta` keys through to
 * `ctx.mcpReq._meta`, so this works over stdio and HTTP.
 *
 * Security: the value is asserted by the client, not verified. Use it only where the client is
 * trusted to name its user (a local stdio parent process, a fixture, a test); on HTTP prefer the
 * verified token.
 */
export function principalFromMeta(key: string = PRINCIPAL_META_KEY): PrincipalResolver {
  return (ctx) => text(ctx.mcpReq._meta?.[key]);
}
