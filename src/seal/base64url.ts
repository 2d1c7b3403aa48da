/**
 * Strict, canonical base64url (RFC 4648 §5, no padding).
 *
 * Node's decoder is forgiving: it skips padding, whitespace and `+`/`/`, and ignores the unused low bits
 * of the last character. Each of those gives a second spelling of the same bytes, and a second spelling
 * of a sealed value defeats any cache or ledger keyed on the string. So a value decodes only if encoding
 * the decoded bytes gives back exactly the same string.
 */

/** Encode bytes as unpadded base64url. */
export function encodeBase64url(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64url');
}

/** Decode canonical unpadded base64url, or return `undefined` for any other spelling. */
export function decodeBase64url(text: string): Buffer | undefined {
  // A length of 4n+1 encodes no whole byte: never canonical.
  // Stryker disable next-line ConditionalExpression,ArithmeticOperator: a shortcut: a 4n+1 spelling never survives the round trip below either.
  if (text.length % 4 === 1) return undefined;
  const bytes = Buffer.from(text, 'base64url');
  // The encoder only ever writes the canonical spelling, so the round trip rejects every other one:
  // a character outside the alphabet (`=`, `+`, `/`, whitespace, anything non-ASCII) or non-zero
  // unused bits in the last character. One comparison covers all of them, and it is cheaper than a
  // separate alphabet scan.
  return bytes.toString('base64url') === text ? bytes : undefined;
}
