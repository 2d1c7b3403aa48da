/**
 * The claims sealed inside a v1 `requestState`, in a compact binary layout (a 16-byte state seals to
 * well under 320 characters):
 *
 *     flags[1] iat[6] exp[6] flow[6] jti[16] args[32] (principal[16])? (question[32])?
 *     audLen[1] aud methodLen[1] method (nameLen[2] name)? state(JSON, rest)
 *
 * Times are milliseconds since the epoch as 48-bit integers. The principal appears only as a keyed tag.
 */

const HAS_PRINCIPAL = 1;
const HAS_QUESTION = 2;
const HAS_NAME = 4;

export const JTI_BYTES = 16;
export const PRINCIPAL_TAG_BYTES = 16;
const DIGEST_BYTES = 32;

/** Everything sealed beside the handler's state. */
export interface RawClaims {
  issuedAt: number;
  expiresAt: number;
  flowExpiresAt: number;
  tokenId: Buffer;
  argsDigest: Buffer;
  principalTag: Buffer | undefined;
  questionDigest: Buffer | undefined;
  audience: string;
  method: string;
  name: string | undefined;
}

/** Serialize claims and the state's JSON text. */
export function encodeClaims(claims: RawClaims, stateJson: string): Buffer {
  const aud = Buffer.from(claims.audience, 'utf8');
  const method = Buffer.from(claims.method, 'utf8');
  const name = claims.name === undefined ? undefined : Buffer.from(claims.name, 'utf8');
  if (method.length > 0xff)
    throw new TypeError(`method must be at most 255 bytes, got ${method.length}`);
  if (name !== undefined && name.length > 0xffff) {
    throw new TypeError(`name must be at most 65535 bytes, got ${name.length}`);
  }
  const flags =
    (claims.principalTag ? HAS_PRINCIPAL : 0) |
    (claims.questionDigest ? HAS_QUESTION : 0) |
    (name ? HAS_NAME : 0);
  const head = Buffer.alloc(19);
  head.writeUInt8(flags, 0);
  head.writeUIntBE(claims.issuedAt, 1, 6);
  head.writeUIntBE(claims.expiresAt, 7, 6);
  head.writeUIntBE(claims.flowExpiresAt, 13, 6);
  const parts: Buffer[] = [head, claims.tokenId, claims.argsDigest];
  if (claims.principalTag) parts.push(claims.principalTag);
  if (claims.questionDigest) parts.push(claims.questionDigest);
  parts.push(Buffer.of(aud.length), aud, Buffer.of(method.length), method);
  if (name) {
    const len = Buffer.alloc(2);
    len.writeUInt16BE(name.length);
    parts.push(len, name);
  }
  parts.push(Buffer.from(stateJson, 'utf8'));
  return Buffer.concat(parts);
}

/** Parse what `encodeClaims` wrote, or `undefined` if the layout does not hold. */
export function decodeClaims(buf: Buffer): { claims: RawClaims; stateJson: string } | undefined {
  let at = 0;
  const take = (n: number): Buffer | undefined => {
    if (at + n > buf.length) return undefined;
    const out = buf.subarray(at, at + n);
    at += n;
    return out;
  };
  const head = take(19);
  const tokenId = take(JTI_BYTES);
  const argsDigest = take(DIGEST_BYTES);
  if (!head || !tokenId || !argsDigest) return undefined;
  const flags = head.readUInt8(0);
  const principalTag = flags & HAS_PRINCIPAL ? take(PRINCIPAL_TAG_BYTES) : undefined;
  const questionDigest = flags & HAS_QUESTION ? take(DIGEST_BYTES) : undefined;
  if ((flags & HAS_PRINCIPAL && !principalTag) || (flags & HAS_QUESTION && !questionDigest)) {
    return undefined;
  }
  const audLen = take(1);
  const aud = audLen && take(audLen[0] as number);
  const methodLen = take(1);
  const method = methodLen && take(methodLen[0] as number);
  if (!aud || !method) return undefined;
  let name: string | undefined;
  if (flags & HAS_NAME) {
    const nameLen = take(2);
    const nameBytes = nameLen && take(nameLen.readUInt16BE(0));
    if (!nameBytes) return undefined;
    name = nameBytes.toString('utf8');
  }
  return {
    claims: {
      issuedAt: head.readUIntBE(1, 6),
      expiresAt: head.readUIntBE(7, 6),
      flowExpiresAt: head.readUIntBE(13, 6),
      tokenId,
      argsDigest,
      principalTag,
      questionDigest,
      audience: aud.toString('utf8'),
      method: method.toString('utf8'),
      name,
    },
    stateJson: buf.subarray(at).toString('utf8'),
  };
}
