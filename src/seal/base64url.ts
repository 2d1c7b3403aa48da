/**
 * Strict, canonical base64url (RFC 4648 §5, no padding).
 *
 * Node's decoder is forgiving: it skips padding, whitespace and `+`/`/`, and ignores the unused low bits
 * of the last character. Each of those gives a second spelling of the same bytes, and a second spelling
 * of a sealed value defeats any cache or ledger keyed on the string. So a value decodes only if encoding
 * the decoded bytes gives back exactly the same string.
 */

const ALPHABET = /^[A-Za-z0-9_-]*$/;

/** Encode bytes as unpadded base64url. */
export function encodeBase64url(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64url');
}

/** Decode canonical unpadded base64url, or return `undefined` for any other spelling. */
export function decodeBase64url(text: string): Buffer | undefined {
  if (!ALPHABET.test(text) || text.length % 4 === 1) return undefined;
  const bytes = Buffer.from(text, 'base64url');
  // Rejects non-zero trailing bits: the only alphabet-valid non-canonical spelling left.
  return bytes.toString('base64url') === text ? bytes : undefined;
}
