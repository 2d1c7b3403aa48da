/**
 * Where a guarded server finds the principal a `requestState` is bound to.
 *
 * HTTP: the bearer token the SDK verified (`ctx.http.authInfo`), which must name a subject and an
 * issuer. stdio: nothing on the wire carries a principal (the spec says stdio servers take
 * credentials from their environment), so the default is none and a server that tells its callers
 * apart supplies a resolver.
 */
import type { AuthInfo, ServerContext } from '@modelcontextprotocol/server';
import type { Principal } from '../seal/binding.js';
import { isBlankIdentity } from '../seal/principal-tag.js';

/** Finds the principal of one request; `undefined` means an unauthenticated request. */
export type PrincipalResolver = (ctx: ServerContext) => Principal | undefined;

/**
 * The `_meta` key some test harnesses and fixtures use to name a principal over stdio. It is not
 * part of the MCP specification.
 */
export const PRINCIPAL_META_KEY = 'io.modelcontextprotocol/principal';

/** A field that names someone, or `undefined`: the binders' own rule for an empty principal. */
function text(value: unknown): string | undefined {
  return typeof value === 'string' && !isBlankIdentity(value) ? value : undefined;
}

/**
 * The principal of a verified access token: client id, issuer and subject. `AuthInfo` has no issuer
 * or subject fields, so they are read from `extra.iss` / `extra.sub` (or `extra.issuer` /
 * `extra.subject`), which the token verifier should fill. Returns `undefined` when there is no
 * `authInfo`, and also when it names no subject or no issuer: the caller decides whether that is
 * acceptable (the default resolver refuses it).
 */
export function principalFromAuthInfo(authInfo: AuthInfo | undefined): Principal | undefined {
  if (authInfo === undefined) return undefined;
  const extra = authInfo.extra ?? {};
  const clientId = text(authInfo.clientId);
  const issuer = text(extra['iss']) ?? text(extra['issuer']);
  const subject = text(extra['sub']) ?? text(extra['subject']);
  if (issuer === undefined || subject === undefined) return undefined;
  return { clientId, issuer, subject };
}

/**
 * What the library's own resolvers throw when a verified token lacks what they bind. Its message is
 * one line for the operator's log: what is missing and the option that fixes it. It names no value
 * of the token (the guard writes it once, and never to the client, which sees `-32603`).
 */
export class PrincipalUnavailableError extends TypeError {
  override readonly name = 'PrincipalUnavailableError';
}

/** The one line the guard logs for a token without a subject or an issuer. */
export const MISSING_SUBJECT_MESSAGE =
  "stateguard: refusing guarded calls (-32603): the verified access token has no subject or issuer, which the default principal (httpPrincipal) binds; set extra.sub and extra.iss in your OAuthTokenVerifier's AuthInfo, or pass createStateGuard({ principal }) (principalFromClientIdOnly binds the OAuth client alone)";

/** The one line the guard logs for a token without a client id under `principalFromClientIdOnly`. */
export const MISSING_CLIENT_MESSAGE =
  "stateguard: refusing guarded calls (-32603): the verified access token has no client id, which principalFromClientIdOnly binds; set clientId in your OAuthTokenVerifier's AuthInfo, or pass another createStateGuard({ principal })";

/**
 * The default resolver, on every transport: the principal of the verified bearer token
 * (`ctx.http.authInfo`) if there is one, none if the request carries no verified token.
 *
 * A verified token must name its user: a subject and an issuer. The SDK's `AuthInfo` always has a
 * client id and has no subject field, so a verifier written in the SDK's own shape names only the
 * client. Every user of a public client (a desktop app, a Client ID Metadata Document client) has
 * the same client id, so a state bound to it would let any of them continue any other's flow. Such
 * a token throws here, and the guard refuses the request (`-32603`, reason
 * `principal-unavailable`) before any handler runs. Fill `extra.sub` and `extra.iss` in the
 * verifier, or choose {@link principalFromClientIdOnly} knowingly.
 *
 * It reads `authInfo` whatever transport the guard was created for, so a guard created with
 * `transport: 'stdio'` and served over HTTP binds the bearer token too: HTTP never inherits stdio's
 * "no principal".
 */
export const httpPrincipal: PrincipalResolver = (ctx) => {
  const authInfo = ctx.http?.authInfo;
  if (authInfo === undefined) return undefined;
  const principal = principalFromAuthInfo(authInfo);
  if (principal === undefined) {
    throw new PrincipalUnavailableError(MISSING_SUBJECT_MESSAGE);
  }
  return principal;
};

/**
 * A resolver that binds a state to the OAuth client alone (`authInfo.clientId`), for servers whose
 * tokens name no user. Every user of one client is then one principal: any of them can continue a
 * flow another began. Use it only where a client is one user (a confidential client acting for
 * itself), never for a public client shared by many users. A request without a client id is refused.
 */
export const principalFromClientIdOnly: PrincipalResolver = (ctx) => {
  const authInfo = ctx.http?.authInfo;
  if (authInfo === undefined) return undefined;
  const clientId = text(authInfo.clientId);
  if (clientId === undefined) throw new PrincipalUnavailableError(MISSING_CLIENT_MESSAGE);
  return { clientId };
};

/**
 * No principal, whatever the request carries. Only for servers that authenticate no one: every
 * caller can then continue every flow. The default resolver already answers "none" to a request
 * without a verified token, on stdio as on HTTP.
 */
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
