/**
 * Evidence builders. Redaction and bounding happen here, at construction, so no reporter, log or
 * report file ever sees an identity secret or a bearer token, and no hostile answer can make the
 * report unserialisable.
 */
import { boundValue, EVIDENCE_LIMITS } from './bound.js';
import { tokenPieces } from './markers.js';
import type { Evidence } from '../model/evidence.js';
import type { IdentityName } from '../model/target.js';

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
 * Secrets shorter than this are replaced only where a whole value is the secret (a JSON string, a
 * header value), never inside text: an identity `a` replaced inside words would turn "the planted
 * value" into "the pl<identity-A>nted v<identity-A>lue". The CLI warns about such identities.
 */
export const MIN_EMBEDDED_SECRET = 3;
/** Secrets shorter than this are replaced inside text only as a whole word, not inside one. */
const MIN_SUBSTRING_SECRET = 8;

/** A secret other than an identity that evidence must not hold (a `--header` value). */
export interface ExtraSecret {
  /** What stands in its place, e.g. `<header X-Tenant>`. */
  readonly placeholder: string;
  readonly value: string;
}

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * A redactor for these identity secrets (and any extra ones). A server may echo a secret as is,
 * inside a bearer header, or base64-encoded inside a state blob it minted; all three are replaced,
 * because a real token supplied through the environment must not reach a report file in any
 * encoding. A short secret is replaced only where it stands alone, so that ordinary words survive.
 */
export function createRedactor(
  identities: Partial<Record<IdentityName, string>>,
  extra: readonly ExtraSecret[] = [],
): Redactor {
  const named = (Object.entries(identities) as [IdentityName, string | undefined][]).filter(
    (e): e is [IdentityName, string] => typeof e[1] === 'string' && e[1].length > 0,
  );
  const given = [
    ...named.map(([name, secret]) => ({ secret, placeholder: identityPlaceholder(name), name })),
    ...extra
      .filter((x) => x.value.length > 0)
      .map((x) => ({ secret: x.value, placeholder: x.placeholder, name: undefined })),
  ];
  // A probe reads answers as tokens (markers.ts), and a token names what it found in a reason: a
  // secret ending in a dash is read without it, and must be replaced in that form too. Every long
  // piece the token reading can cut out of a secret stands for the secret.
  const pieces = given.flatMap((x) =>
    tokenPieces(x.secret)
      .filter((p) => p !== x.secret && p.length >= MIN_SUBSTRING_SECRET)
      .map((p) => ({ ...x, secret: p })),
  );
  const secrets = [...given, ...pieces].sort((a, b) => b.secret.length - a.secret.length);
  const replacers = secrets
    .filter((x) => x.secret.length >= MIN_EMBEDDED_SECRET)
    .map((x) =>
      x.secret.length >= MIN_SUBSTRING_SECRET
        ? (s: string) => s.split(x.secret).join(x.placeholder)
        : (s: string) =>
            s.replace(
              new RegExp(`(?<![A-Za-z0-9])${escapeRegExp(x.secret)}(?![A-Za-z0-9])`, 'g'),
              x.placeholder,
            ),
    );
  const whole = (s: string): string | undefined => secrets.find((x) => x.secret === s)?.placeholder;

  const plain = (s: string): string => {
    let out = s;
    for (const replace of replacers) out = replace(out);
    return out;
  };
  const encodable = secrets.filter((x) => x.secret.length >= MIN_EMBEDDED_SECRET);
  const encoded = (s: string): string =>
    s.replace(ENCODED_RUN, (run) => {
      const decoded = Buffer.from(run, 'base64').toString('latin1');
      const hit = encodable.find((x) => decoded.includes(x.secret));
      return hit ? `<encoded: contains ${hit.placeholder}>` : run;
    });
  const string = (s: string): string =>
    whole(s) ??
    (secrets.length === 0
      ? s.replace(BEARER, 'Bearer <redacted>')
      : encoded(plain(s)).replace(BEARER, 'Bearer <redacted>'));

  return {
    string,
    identityOf: (s) => named.find(([, secret]) => secret === s)?.[0],
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
        const shown = whole(token) ?? '<redacted>';
        out[lower] = scheme ? `Bearer ${shown}` : shown;
      }
      return out;
    },
  };
}

/**
 * `base`, and also the legacy session ids the scan was handed, each replaced by its name
 * (`<session-A>`): on a server that routes by session id alone the id is as good as a credential,
 * and named, the evidence still shows whose session a request presented. `names` is read at each
 * call, so ids handed out later are covered too. An id shorter than 8 characters is replaced only
 * where it is a whole value.
 */
export function withSessionIds(base: Redactor, names: ReadonlyMap<string, string>): Redactor {
  const swap = (s: string): string => {
    const whole = names.get(s);
    if (whole !== undefined) return whole;
    let out = s;
    for (const [id, name] of names) if (id.length >= 8) out = out.split(id).join(name);
    return out;
  };
  const string = (s: string): string => base.string(swap(s));
  return {
    string,
    value: (v) => boundValue(v, EVIDENCE_LIMITS, string),
    headers: (h) =>
      base.headers(Object.fromEntries(Object.entries(h).map(([k, v]) => [k, swap(v)]))),
    identityOf: (s) => base.identityOf(s),
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
