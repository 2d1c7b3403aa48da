/**
 * What a `requestState` shows to anyone who reads it: whether it decodes to readable JSON (as is,
 * base64 or base64url JSON, or a JWT's JSON), whether anything beside that JSON could be an
 * integrity tag, and which identity-like field names it carries in the clear. Read once, when the
 * state is recorded, because the capture keeps only a digest of the state itself.
 *
 * The decoders are the scanner's (`probe/evidence/encodings.ts`); nothing here decides a verdict.
 */
import { decodings } from '../probe/evidence/encodings.js';

/** How a state reads: not at all (`opaque`), or as JSON in one of three wrappings. */
export const STATE_READINGS = ['opaque', 'json', 'base64-json', 'jwt-json'] as const;
export type StateReading = (typeof STATE_READINGS)[number];

/** What one state shows. Field names only, never values. */
export interface StateShape {
  readonly reading: StateReading;
  /** Something beside the JSON is long enough to be a MAC or signature (≥ 16 bytes). */
  readonly tagged: boolean;
  /** Identity-like field names found in the readable JSON (sorted, at most 16). */
  readonly identity: readonly string[];
}

/** Field names that say who the state is for. */
const IDENTITY_FIELD =
  /^(sub|iss|aud|user|users?_?id|user_?name|principal|owner|email|account|account_?id|tenant|tenant_?id|client_?id|role|roles|scope|scopes|is_?admin|admin|login|uid)$/i;
/** Field names that carry a tag inside the JSON itself. */
const TAG_FIELD = /^(mac|hmac|sig|signature|tag)$/i;
/** Bytes of a tag: 128 bits, the shortest MAC worth the name. */
const MIN_TAG_BYTES = 16;
/** Longest state analysed; a longer one is read as opaque (it is still digested). */
const MAX_STATE = 64 * 1024;

function parseObject(text: string): Record<string, unknown> | undefined {
  const trimmed = text.trim();
  if (!trimmed.startsWith('{')) return undefined;
  try {
    const v: unknown = JSON.parse(trimmed);
    return typeof v === 'object' && v !== null && !Array.isArray(v)
      ? (v as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** Identity-like and tag-like field names, walked to a bounded depth and breadth. */
function fieldNames(value: unknown): { identity: Set<string>; tag: boolean } {
  const identity = new Set<string>();
  let tag = false;
  let visited = 0;
  const walk = (v: unknown, depth: number): void => {
    if (depth > 8 || typeof v !== 'object' || v === null || visited > 500) return;
    for (const [k, item] of Object.entries(v)) {
      visited++;
      if (IDENTITY_FIELD.test(k) && identity.size < 16) identity.add(k);
      if (TAG_FIELD.test(k) && typeof item === 'string' && item.length >= 22) tag = true;
      walk(item, depth + 1);
    }
  };
  walk(value, 0);
  return { identity, tag };
}

const b64Bytes = (segment: string): number =>
  /^[A-Za-z0-9+/_-]+={0,2}$/.test(segment)
    ? Buffer.from(segment.replace(/-/g, '+').replace(/_/g, '/'), 'base64').length
    : 0;

const shape = (
  reading: StateReading,
  tagged: boolean,
  json: Record<string, unknown>[],
): StateShape => {
  const names = json.map(fieldNames);
  return {
    reading,
    tagged: tagged || names.some((n) => n.tag),
    identity: [...new Set(names.flatMap((n) => [...n.identity]))].sort(),
  };
};

/** Reads one state. */
export function stateShape(state: string): StateShape {
  if (state.length > MAX_STATE) return { reading: 'opaque', tagged: false, identity: [] };
  const direct = parseObject(state);
  if (direct !== undefined) return shape('json', false, [direct]);
  const parts = state.split('.');
  // A JWT: header.payload.signature, both first parts JSON. `alg: none` or an empty or short
  // signature is no integrity tag.
  if (parts.length === 3) {
    const [head, body, sig] = parts as [string, string, string];
    const header = parseObject(Buffer.from(head, 'base64url').toString('utf8'));
    const payload = parseObject(Buffer.from(body, 'base64url').toString('utf8'));
    if (header !== undefined && payload !== undefined && typeof header['alg'] === 'string') {
      const signed = String(header['alg']).toLowerCase() !== 'none' && b64Bytes(sig) >= 16;
      return shape('jwt-json', signed, [payload]);
    }
  }
  const json: Record<string, unknown>[] = [];
  const others: string[] = [];
  for (const part of state.split(/[.:~\s]+/)) {
    const found = decodings(part)
      .map(parseObject)
      .filter((o): o is Record<string, unknown> => o !== undefined);
    if (found.length > 0) json.push(found[0] as Record<string, unknown>);
    else others.push(part);
  }
  if (json.length === 0) return { reading: 'opaque', tagged: false, identity: [] };
  return shape(
    'base64-json',
    others.some((o) => b64Bytes(o) >= MIN_TAG_BYTES),
    json,
  );
}
