/**
 * The target flags of `stateguard scan`: `--http <url>` (with its connection policy and TLS) or
 * `--stdio "<command line>"`. A URL without a scheme gets the URL it most likely meant suggested.
 */
import { ProbeUsageError } from '../errors.js';
import { CONNECTION_POLICIES, type ConnectionPolicy } from '../probe/target/http-connection.js';
import type { HttpTls, Target } from '../probe/model/target.js';
import { splitCommandLine } from './command-line.js';

/** `--http-connection <policy>`, checked against the target. */
export function connectionPolicy(
  value: string | undefined,
  http: string | undefined,
): ConnectionPolicy | undefined {
  if (value === undefined) return undefined;
  if (http === undefined) throw new ProbeUsageError('--http-connection applies only to --http');
  if (!(CONNECTION_POLICIES as readonly string[]).includes(value))
    throw new ProbeUsageError(
      `unknown --http-connection '${value}' (${CONNECTION_POLICIES.join(', ')})`,
    );
  return value as ConnectionPolicy;
}

/** `localhost:3000` → `http://localhost:3000/mcp`: what the user most likely meant. */
function suggestUrl(value: string): string {
  const bare = value.replace(/^\/+/, '');
  return /\//.test(bare) ? `http://${bare}` : `http://${bare}/mcp`;
}

function httpUrl(http: string): URL {
  // Without a scheme, `localhost:3000` parses as the scheme `localhost:`: suggest the URL instead.
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(http)) {
    throw new ProbeUsageError(
      `--http needs an http(s) URL, got '${http}'; did you mean ${suggestUrl(http)}?`,
    );
  }
  let url: URL;
  try {
    url = new URL(http);
  } catch {
    throw new ProbeUsageError(`--http needs an http(s) URL, got '${http}'`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ProbeUsageError(`--http needs an http(s) URL, got '${url.protocol}' scheme`);
  }
  return url;
}

/** The one target the flags name; a {@link ProbeUsageError} for none, both, or a bad URL. */
export function target(
  http: string | undefined,
  stdio: string | undefined,
  connection: ConnectionPolicy | undefined,
  tls: HttpTls | undefined,
): Target {
  if (http !== undefined && stdio !== undefined)
    throw new ProbeUsageError('give either --http or --stdio, not both');
  if (http !== undefined) {
    const url = httpUrl(http);
    if (tls !== undefined && url.protocol !== 'https:')
      throw new ProbeUsageError(
        `${tls.ca !== undefined ? '--ca' : '--insecure'} applies to https:// URLs only`,
      );
    return {
      kind: 'http',
      url: url.toString(),
      ...(connection ? { connection } : {}),
      ...(tls ? { tls } : {}),
    };
  }
  if (tls !== undefined)
    throw new ProbeUsageError(
      `${tls.ca !== undefined ? '--ca' : '--insecure'} applies to --http https:// targets only`,
    );
  if (stdio !== undefined) return { kind: 'stdio', ...splitCommandLine(stdio) };
  throw new ProbeUsageError('no target: give --http <url> or --stdio "<command line>"');
}
