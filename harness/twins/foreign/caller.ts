/**
 * Who is calling a foreign twin, per transport and identity carrier (see `IdentityCarrier`).
 *
 * In a fixture the identity string is the principal's name. HTTP: the host (`host.ts`) has already
 * turned the bearer token or API-key header into an `AuthInfo`, so only a verified identity counts
 * and a `_meta` claim in the body is ignored. stdio: a request `_meta` key, or one identity read from
 * the environment when the process starts.
 */
import type { ServerContext } from '@modelcontextprotocol/server';
import { PRINCIPAL_META_KEY } from '../../../src/sdk/principal.js';
import type { IdentityCarrier } from './twin.js';

/** Finds the caller of one request. Never throws for a client's input. */
export type CallerOf = (ctx: ServerContext) => string;

/** The caller of a stdio request that names nobody. */
export const GUEST = 'guest';

/** Longest identity accepted from any carrier. */
export const MAX_IDENTITY_LENGTH = 512;

/** Printable ASCII, no spaces: what an API key or a fixture identity may contain. */
const IDENTITY = /^[\x21-\x7e]+$/;

/** `value` if it is a usable identity, else `undefined`. */
export function identityOf(value: unknown): string | undefined {
  return typeof value === 'string' &&
    value.length > 0 &&
    value.length <= MAX_IDENTITY_LENGTH &&
    IDENTITY.test(value)
    ? value
    : undefined;
}

function httpCaller(): CallerOf {
  return (ctx) => {
    const id = ctx.http?.authInfo?.clientId;
    // The host answers 401 before the SDK sees an unauthenticated request; failing closed here keeps
    // a wiring mistake from serving everyone as one user.
    if (typeof id !== 'string' || id.length === 0) throw new Error('unauthenticated request');
    return id;
  };
}

/**
 * The caller resolver of a twin on `transport`, for its stdio carrier. `env` is read once, here, so
 * an `env` carrier behaves like a server that took its API key at start.
 */
export function callerFor(
  transport: 'http' | 'stdio',
  stdio: IdentityCarrier,
  env: NodeJS.ProcessEnv = process.env,
): CallerOf {
  if (transport === 'http') return httpCaller();
  if (stdio.kind === 'env') {
    const fixed = identityOf(env[stdio.name]) ?? GUEST;
    return () => fixed;
  }
  return (ctx) => identityOf(ctx.mcpReq._meta?.[PRINCIPAL_META_KEY]) ?? GUEST;
}
