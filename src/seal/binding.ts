/**
 * What a sealed value is bound to, and the canonical forms those bindings are compared in.
 */
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
  // Stryker disable BlockStatement: without the assignment the text stays undefined, which the next line refuses the same way.
  try {
    text = canonicalize(value);
  } catch {
    text = undefined;
  }
  // Stryker restore BlockStatement
  if (text === undefined) throw new TypeError('value is not representable as JSON');
  return text;
}
