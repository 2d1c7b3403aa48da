/**
 * The claims sealed inside a v1 handle, in a compact binary layout (a `workspace` handle bound to a
 * principal is 130 characters):
 *
 *     flags[1] iat[6] exp[6] id[16] (principal[16])? audience[8] kindLen[1] kind
 *
 * Times are milliseconds since the epoch as 48-bit integers. The principal and the audience appear only
 * as keyed tags: the client can read neither, and the whole layout is authenticated by AES-256-GCM.
 */

const HAS_PRINCIPAL = 1;
const KNOWN_FLAGS = HAS_PRINCIPAL;

/** Random bytes of a handle's id: 128 bits, so a handle cannot be guessed. */
export const HANDLE_ID_BYTES = 16;
/** Bytes of the keyed principal tag. */
export const HANDLE_PRINCIPAL_BYTES = 16;
/**
 * Bytes of the keyed audience tag. The tag only tells audiences that share a key apart (the AEAD already
 * stops forgery), so 64 bits keep handles short without weakening the binding.
 */
export const HANDLE_AUDIENCE_BYTES = 8;
/** The longest kind accepted, in bytes. */
export const MAX_KIND_BYTES = 64;

const HEAD_BYTES = 13;

/** Everything a handle carries. */
export interface RawHandleClaims {
  issuedAt: number;
  expiresAt: number;
  handleId: Buffer;
  principalTag: Buffer | undefined;
  audienceTag: Buffer;
  kind: string;
}

/** Serialize handle claims. The kind must already be validated. */
export function encodeHandleClaims(claims: RawHandleClaims): Buffer {
  // Stryker disable next-line StringLiteral: an empty encoding name is Node's default, UTF-8.
  const kind = Buffer.from(claims.kind, 'utf8');
  const head = Buffer.alloc(HEAD_BYTES);
  head.writeUInt8(claims.principalTag ? HAS_PRINCIPAL : 0, 0);
  head.writeUIntBE(claims.issuedAt, 1, 6);
  head.writeUIntBE(claims.expiresAt, 7, 6);
  const parts = [head, claims.handleId];
  if (claims.principalTag) parts.push(claims.principalTag);
  parts.push(claims.audienceTag, Buffer.of(kind.length), kind);
  return Buffer.concat(parts);
}

/** Parse what `encodeHandleClaims` wrote, or `undefined` if the layout does not hold exactly. */
export function decodeHandleClaims(buf: Buffer): RawHandleClaims | undefined {
  let at = 0;
  const take = (n: number): Buffer | undefined => {
    if (at + n > buf.length) return undefined;
    const out = buf.subarray(at, at + n);
    at += n;
    return out;
  };
  const head = take(HEAD_BYTES);
  const handleId = take(HANDLE_ID_BYTES);
  if (!head || !handleId) return undefined;
  const flags = head.readUInt8(0);
  // Unknown flags mean another layout: refuse rather than guess.
  if ((flags & ~KNOWN_FLAGS) !== 0) return undefined;
  const principalTag = flags & HAS_PRINCIPAL ? take(HANDLE_PRINCIPAL_BYTES) : undefined;
  if (flags & HAS_PRINCIPAL && !principalTag) return undefined;
  const audienceTag = take(HANDLE_AUDIENCE_BYTES);
  const kindLen = take(1);
  const kind = kindLen && take(kindLen[0] as number);
  // Trailing bytes would be a second spelling of the same claims.
  if (!audienceTag || !kind || at !== buf.length) return undefined;
  return {
    issuedAt: head.readUIntBE(1, 6),
    expiresAt: head.readUIntBE(7, 6),
    handleId,
    principalTag,
    audienceTag,
    kind: kind.toString('utf8'),
  };
}
