/**
 * What a sealed value is bound to, and the canonical forms those bindings are compared in.
 */
import * as crypto from 'node:crypto';
import canonicalize from 'canonicalize';

/** The authenticated party: a plain id, or the verified parts of an OAuth access token. */
export type Principal = string | { clientId?: string; issuer?: string; subject?: string };

/** The request a `requestState` belongs to. */
export interface StateBinding {
  /** Who the state was issued to. Absent means an unauthenticated server. */
  principal?: Principal | undefined;
  /** The JSON-RPC method: `tools/call`, `prompts/get` or `resources/read`. */
  method: string;
  /** The tool or prompt name, or the resource URI. */
  name?: string | undefined;
  /** The call's arguments; compared as an RFC 8785 canonical digest, so key order never matters. */
  args?: unknown;
  /** Optionally, the questions asked this round (compared as a canonical digest). */
  question?: unknown;
}

/** RFC 8785 canonical JSON. Throws `TypeError` for values JSON cannot carry. */
export function canonicalJson(value: unknown): string {
  let text: string | undefined;
  try {
    text = canonicalize(value);
  } catch {
    text = undefined;
  }
  if (text === undefined) throw new TypeError('value is not representable as JSON');
  return text;
}

// One-shot `crypto.hash` (Node ≥ 20.12) skips the Hash object and is about twice as fast for the
// short texts digested here; older Node 20 releases fall back to `createHash`. A namespace import,
// because a named import of a missing export would fail to link on those releases.
const oneShot = (crypto as { hash?: typeof crypto.hash }).hash;
const sha256: (text: string) => Buffer =
  typeof oneShot === 'function'
    ? (text) => oneShot('sha256', text, 'buffer')
    : (text) => crypto.createHash('sha256').update(text, 'utf8').digest();

// Tools called without arguments are common; their digest never changes. Shared: never mutate it.
const EMPTY_DIGEST = sha256('{}');

/** SHA-256 of the canonical JSON of a value; absent (`undefined`/`null`) arguments digest as `{}`. */
export function jsonDigest(value: unknown): Buffer {
  return value === undefined || value === null ? EMPTY_DIGEST : sha256(canonicalJson(value));
}
