/**
 * Evidence builders. Redaction and bounding happen here, at construction, so no reporter, log or
 * report file ever sees an identity secret or a bearer token, and no hostile answer can make the
 * report unserialisable.
 */
import { boundValue, EVIDENCE_LIMITS } from './bound.js';
import type { Evidence, IdentityName } from '../types.js';

/** Replaces secrets in strings and values. Built once per run from the two identities. */
export interface Redactor {
  /** The string with identities, bearer tokens and blobs that encode an identity replaced. */
  string(s: string): string;
  /** A bounded, redacted deep copy. */
  value(v: unknown): unknown;
  /** Header map with credentials replaced, whatever their case. */
  headers(h: Record<string, string>): Record<string, string>;
  /** The identity whose secret `s` is exactly, if any. */
  identityOf(s: string): IdentityName | undefined;
}

const CREDENTIAL_HEADERS = new Set([
  'authorization',
  'proxy-authorization',
  'cookie',
  'set-cookie',
]);
const BEARER = /\bBearer\s+(?!<)[A-Za-z0-9\-._~+/]+=*/gi;
// Runs of base64/base64url long enough to hide a secret; `.` splits JWS and `v1.` segments.
const ENCODED_RUN = /[A-Za-z0-9+/_-]{12,}={0,2}/g;

/** The placeholder that stands for an identity's secret in evidence. */
export function identityPlaceholder(name: IdentityName): string {
  return `<identity-${name}>`;
}

/**
 * A redactor for these identity secrets. A server may echo a secret as is, inside a bearer
 * header, or base64-encoded inside a state blob it minted; all three are replaced, because a real
 * token supplied through the environment must not reach a report file in any encoding.
 */
export function createRedactor(identities: Partial<Record<IdentityName, string>>): Redactor {
  const secrets = (Object.entries(identities) as [IdentityName, string | undefined][])
    .filter((e): e is [IdentityName, string] => typeof e[1] === 'string' && e[1].length > 0)
    .sort((a, b) => b[1].length - a[1].length);

  const plain = (s: string): string => {
    let out = s;
    for (const [name, secret] of secrets) out = out.split(secret).join(identityPlaceholder(name));
    return out;
  };
  const encoded = (s: string): string =>
    s.replace(ENCODED_RUN, (run) => {
      const decoded = Buffer.from(run, 'base64').toString('latin1');
      const hit = secrets.find(([, secret]) => decoded.includes(secret));
      return hit ? `<encoded: contains ${identityPlaceholder(hit[0])}>` : run;
    });
  const string = (s: string): string =>
    secrets.length === 0
      ? s.replace(BEARER, 'Bearer <redacted>')
      : encoded(plain(s)).replace(BEARER, 'Bearer <redacted>');

  return {
    string,
    identityOf: (s) => secrets.find(([, secret]) => secret === s)?.[0],
    value: (v) => boundValue(v, EVIDENCE_LIMITS, string),
    headers(h) {
      const out: Record<string, string> = {};
      for (const [name, value] of Object.entries(h)) {
        const lower = name.toLowerCase();
        if (!CREDENTIAL_HEADERS.has(lower)) {
          out[lower] = string(value).slice(0, 1024);
          continue;
        }
        const scheme = /^\s*Bearer\s+/i.exec(value);
        const token = scheme ? value.slice(scheme[0].length) : value;
        const who = secrets.find(([, secret]) => secret === token);
        const shown = who ? identityPlaceholder(who[0]) : '<redacted>';
        out[lower] = scheme ? `Bearer ${shown}` : shown;
      }
      return out;
    },
  };
}

/** Fields of a JSON-RPC exchange, before redaction. */
export type JsonRpcEvidenceInput = Omit<Extract<Evidence, { kind: 'jsonrpc' }>, 'kind'>;

/** Evidence of one JSON-RPC exchange (stdio, or HTTP when headers are not the point). */
export function jsonrpcEvidence(r: Redactor, e: JsonRpcEvidenceInput): Evidence {
  return {
    kind: 'jsonrpc',
    label: r.string(e.label),
    ...(e.identity ? { identity: e.identity } : {}),
    transport: e.transport,
    sent: r.value(e.sent),
    received: r.value([...e.received]) as unknown[],
    ...(e.error !== undefined ? { error: r.string(e.error) } : {}),
    ms: e.ms,
  };
}

/** Fields of an HTTP exchange, before redaction. */
export type HttpEvidenceInput = Omit<Extract<Evidence, { kind: 'http' }>, 'kind'>;

/** Evidence of one HTTP exchange, headers included. */
export function httpEvidence(r: Redactor, e: HttpEvidenceInput): Evidence {
  const { request, response } = e;
  return {
    kind: 'http',
    label: r.string(e.label),
    ...(e.identity ? { identity: e.identity } : {}),
    request: {
      method: request.method,
      url: r.string(request.url),
      headers: r.headers(request.headers),
      ...(request.body !== undefined ? { body: r.value(request.body) } : {}),
    },
    ...(response
      ? {
          response: {
            status: response.status,
            headers: r.headers(response.headers),
            ...(response.body !== undefined ? { body: r.value(response.body) } : {}),
          },
        }
      : {}),
    ...(e.received ? { received: r.value([...e.received]) as unknown[] } : {}),
    ...(e.error !== undefined ? { error: r.string(e.error) } : {}),
    ms: e.ms,
  };
}

/** A free-text note. */
export function noteEvidence(r: Redactor, text: string): Evidence {
  return { kind: 'note', text: r.string(text).slice(0, EVIDENCE_LIMITS.maxString) };
}

/** Lines a stdio child wrote to stderr. */
export function stderrEvidence(r: Redactor, lines: readonly string[]): Evidence {
  return { kind: 'stderr', lines: lines.map((l) => r.string(l)) };
}
