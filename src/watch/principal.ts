/**
 * Who sent a request, as the proxy can tell from the traffic alone: the subject of an
 * `Authorization` bearer token (a JWT's `iss` and `sub`, so one user's refreshed token is the same
 * principal; any other token as itself), an identity header the user names, or a `_meta` key (over
 * stdio, where nothing else can carry one). Only a digest under the capture's key is recorded.
 */
import type { Digester } from './capture.js';

/** Longest credential read; a longer one is digested as it is, never parsed. */
const MAX_TOKEN = 16 * 1024;

/** The JWT subject of a token (`iss|sub`), when it is a JWT whose payload names a subject. */
export function jwtSubject(token: string): string | undefined {
  if (token.length > MAX_TOKEN) return undefined;
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  try {
    const payload: unknown = JSON.parse(Buffer.from(parts[1] ?? '', 'base64url').toString('utf8'));
    if (typeof payload !== 'object' || payload === null) return undefined;
    const { sub, iss } = payload as { sub?: unknown; iss?: unknown };
    if (typeof sub !== 'string' || sub === '') return undefined;
    return `${typeof iss === 'string' ? iss : ''}|${sub}`;
  } catch {
    return undefined;
  }
}

/** The principal's text of an `Authorization` value, or undefined without a bearer token. */
export function bearerIdentity(authorization: string | undefined): string | undefined {
  if (authorization === undefined) return undefined;
  const m = /^\s*Bearer\s+(\S+)\s*$/i.exec(authorization);
  const token = m?.[1];
  if (token === undefined) return undefined;
  const subject = jwtSubject(token);
  return subject === undefined ? `token:${token}` : `jwt:${subject}`;
}

/** Where the proxy looks for a principal. */
export interface PrincipalSources {
  /** An identity header the server reads (`--identity-header NAME`), lower-case. */
  readonly header?: string;
  /** The `_meta` key naming the principal (`--principal-meta-key`). */
  readonly metaKey: string;
}

/** The principal's text in a request's `_meta`, if any. */
export function metaIdentity(message: unknown, metaKey: string): string | undefined {
  if (typeof message !== 'object' || message === null) return undefined;
  const params = (message as { params?: unknown }).params;
  if (typeof params !== 'object' || params === null) return undefined;
  const meta = (params as { _meta?: unknown })._meta;
  if (typeof meta !== 'object' || meta === null) return undefined;
  const value = (meta as Record<string, unknown>)[metaKey];
  return typeof value === 'string' && value !== '' && value.length <= MAX_TOKEN ? value : undefined;
}

/**
 * The digest of the principal of a request: from `Authorization`, else the identity header, else
 * `_meta`. Undefined when nothing names one.
 */
export function principalDigest(
  digester: Digester,
  sources: PrincipalSources,
  headers: Readonly<Record<string, string | string[] | undefined>>,
  message: unknown,
): string | undefined {
  const one = (name: string): string | undefined => {
    const v = headers[name];
    return Array.isArray(v) ? v[0] : v;
  };
  const bearer = bearerIdentity(one('authorization'));
  if (bearer !== undefined) return digester.digest('principal', bearer);
  if (sources.header !== undefined) {
    const v = one(sources.header);
    if (v !== undefined && v !== '')
      return digester.digest('principal', `header:${v.slice(0, MAX_TOKEN)}`);
  }
  const meta = metaIdentity(message, sources.metaKey);
  return meta === undefined ? undefined : digester.digest('principal', `meta:${meta}`);
}
