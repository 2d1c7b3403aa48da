/**
 * Changing a `requestState` the way an attacker would: one security-relevant field at a time when
 * the blob decodes, a few characters when it does not, and a random blob of the same shape for the
 * negative control.
 *
 * Two traps a weaker tamper falls into. Appending `-TAMPERED` or flipping the low bits of the last
 * base64 character changes nothing a forgiving decoder reads, so "accepted" would prove nothing:
 * every flip here is checked to change the decoded bytes. And a re-signed or re-encoded envelope
 * tests the encoder, not the server: a signature segment is left exactly as issued.
 */
import { randomInt } from 'node:crypto';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
const isObject = (v: unknown): v is { [k: string]: Json } =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** How the JSON segment of a blob is written. */
export type SegmentEncoding = 'json' | 'base64url' | 'base64';

/** A blob that decodes to a JSON object in one of its `.`-separated segments. */
export interface DecodedBlob {
  readonly segments: readonly string[];
  readonly index: number;
  readonly encoding: SegmentEncoding;
  readonly value: { [k: string]: Json };
}

function parseObject(text: string): { [k: string]: Json } | undefined {
  try {
    const v: unknown = JSON.parse(text);
    return isObject(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

/** Decode a blob: raw JSON, base64url/base64 JSON, `body.signature`, `v1.body.mac`, or JWS. */
export function decodeBlob(blob: string): DecodedBlob | undefined {
  const whole = parseObject(blob);
  if (whole !== undefined) return { segments: [blob], index: 0, encoding: 'json', value: whole };
  const segments = blob.split('.');
  // JWS compact puts the claims second; everything else puts the body first.
  const order = segments.length === 3 ? [1, 0, 2] : segments.map((_, i) => i);
  for (const index of order) {
    const seg = segments[index] ?? '';
    if (seg.length < 4) continue;
    if (/^[A-Za-z0-9_-]+$/.test(seg)) {
      const value = parseObject(Buffer.from(seg, 'base64url').toString('utf8'));
      if (value !== undefined) return { segments, index, encoding: 'base64url', value };
    }
    if (/^[A-Za-z0-9+/]+={0,2}$/.test(seg)) {
      const value = parseObject(Buffer.from(seg, 'base64').toString('utf8'));
      if (value !== undefined) return { segments, index, encoding: 'base64', value };
    }
  }
  return undefined;
}

/** Re-encode a decoded blob with a new value, every other segment (the signature) as issued. */
export function encodeBlob(decoded: DecodedBlob, value: Json): string {
  const text = JSON.stringify(value);
  const original = decoded.segments[decoded.index] ?? '';
  let seg = text;
  if (decoded.encoding === 'base64url') seg = Buffer.from(text).toString('base64url');
  if (decoded.encoding === 'base64') {
    seg = Buffer.from(text).toString('base64');
    if (!original.endsWith('=')) seg = seg.replace(/=+$/, '');
  }
  const segments = [...decoded.segments];
  segments[decoded.index] = seg;
  return segments.join('.');
}

/** One planned change, re-applicable to a fresh blob of the same structure. */
export interface Mutation {
  /** E.g. `principal → canary`, `amount ×1000`, `byte flip at 40%`. */
  readonly label: string;
  /** The value planted, when it is a string the answer might show. */
  readonly marker?: string;
  /** The changed blob, or `undefined` when this blob has no such field. */
  apply(blob: string): string | undefined;
}

const PRINCIPAL =
  /^(principal|owner|user|username|userid|user_id|sub|subject|actor|caller|account|uid|asked_?by|created_?by|client_?id|email|who)$/i;
const ROLE = /^(role|roles|scope|scopes|permission|permissions|group|groups|tier|plan)$/i;
const APPROVAL = /(approv|confirm|authori|allow|verif|admin|grant|consent|accept|paid|trusted)/i;
const AMOUNT =
  /(amount|count|qty|quantity|limit|max|total|price|balance|credit|quota|size|items|value)/i;
const EXPIRY =
  /^(exp|expires?|expiry|expires_?at|expiration|ttl|deadline|not_?after|valid_?until)$/i;
const TARGET =
  /(^id$|_id$|Id$|target|resource|workspace|file|path|recipient|^to$|account|handle|document|project|repo|record)/i;

type Change = {
  path: (string | number)[];
  label: string;
  next: (old: Json) => Json | undefined;
  marker?: string;
};

function leaves(
  value: Json,
  path: (string | number)[] = [],
  out: [(string | number)[], Json][] = [],
) {
  if (Array.isArray(value)) value.forEach((v, i) => leaves(v, [...path, i], out));
  else if (isObject(value))
    for (const [k, v] of Object.entries(value)) leaves(v, [...path, k], out);
  else out.push([path, value]);
  return out;
}

function keyOf(path: (string | number)[]): string {
  for (let i = path.length - 1; i >= 0; i--)
    if (typeof path[i] === 'string') return path[i] as string;
  return '';
}

function changesFor(value: Json, canary: string): Change[] {
  const ranked: [number, Change][] = [];
  for (const [path, leaf] of leaves(value)) {
    const key = keyOf(path);
    const at = path.join('.');
    const add = (rank: number, change: Omit<Change, 'path'>): void => {
      ranked.push([rank, { path, ...change }]);
    };
    if (typeof leaf === 'string' && PRINCIPAL.test(key)) {
      add(0, { label: `${at}: principal → canary`, next: () => canary, marker: canary });
    } else if (typeof leaf === 'string' && ROLE.test(key)) {
      add(1, { label: `${at}: role → admin`, next: () => 'admin' });
    } else if (typeof leaf === 'boolean' && APPROVAL.test(key)) {
      add(2, { label: `${at}: ${String(leaf)} → ${String(!leaf)}`, next: (o) => !o });
    } else if (typeof leaf === 'number' && EXPIRY.test(key)) {
      add(3, { label: `${at}: expiry +10^7`, next: (o) => (o as number) + 1e7 });
    } else if (typeof leaf === 'number' && AMOUNT.test(key)) {
      add(4, { label: `${at}: ×1000`, next: (o) => ((o as number) || 1) * 1000 });
    } else if (typeof leaf === 'string' && TARGET.test(key)) {
      add(5, { label: `${at}: target → canary`, next: () => canary, marker: canary });
    }
  }
  // Array.prototype.sort is stable: within a rank, fields keep their order in the blob.
  return ranked.sort((a, b) => a[0] - b[0]).map(([, change]) => change);
}

function setAt(
  value: Json,
  path: (string | number)[],
  next: (old: Json) => Json | undefined,
): Json | undefined {
  const copy = JSON.parse(JSON.stringify(value)) as Json;
  let node: Json = copy;
  for (const step of path.slice(0, -1)) {
    const child: Json | undefined = (node as Record<string | number, Json>)[step];
    if (child === undefined || child === null || typeof child !== 'object') return undefined;
    node = child;
  }
  const last = path[path.length - 1] as string | number;
  const holder = node as Record<string | number, Json>;
  if (!(last in holder)) return undefined;
  const changed = next(holder[last] as Json);
  if (changed === undefined || typeof changed !== typeof holder[last]) return undefined;
  holder[last] = changed;
  return copy;
}

/**
 * The mutations of a blob, most telling first: principal, role, approval, expiry, amounts, targets
 * when it decodes to a value with such fields; otherwise character flips at `flips` spread offsets of its longest segment.
 */
export function planMutations(blob: string, canary: string, flips = 5): Mutation[] {
  const decoded = decodeBlob(blob);
  const changes = decoded === undefined ? [] : changesFor(decoded.value, canary);
  if (decoded !== undefined && changes.length > 0) {
    return changes.map((c) => ({
      label: c.label,
      ...(c.marker === undefined ? {} : { marker: c.marker }),
      apply(fresh) {
        const d = decodeBlob(fresh);
        if (d === undefined || d.index !== decoded.index) return undefined;
        const value = setAt(d.value, c.path, c.next);
        return value === undefined ? undefined : encodeBlob(d, value);
      },
    }));
  }
  return Array.from({ length: flips }, (_, i) => {
    const at = (i + 1) / (flips + 1);
    return {
      label: `character flip at ${Math.round(at * 100)}% of the blob`,
      apply: (f) => flipAt(f, at),
    };
  });
}

const B64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const HEX = '0123456789abcdef';

function alphabetOf(seg: string): string | undefined {
  if (/^[0-9a-f]+$/.test(seg) && seg.length % 2 === 0) return HEX;
  if (/^[A-Za-z0-9_-]+$/.test(seg)) return B64URL;
  if (/^[A-Za-z0-9+/]+=*$/.test(seg)) return B64;
  return undefined;
}

function decodeWith(seg: string, alphabet: string): Buffer {
  if (alphabet === HEX) return Buffer.from(seg, 'hex');
  return Buffer.from(seg, alphabet === B64 ? 'base64' : 'base64url');
}

/**
 * Change one character near `fraction` of the blob's longest segment so that the decoded bytes
 * change. The last character of a base64 segment is never touched: its low bits may be padding
 * that a decoder drops, so changing it can leave the bytes as they were.
 */
export function flipAt(blob: string, fraction: number): string | undefined {
  const segments = blob.split('.');
  let index = 0;
  segments.forEach((s, i) => {
    if (s.length > (segments[index] ?? '').length) index = i;
  });
  const seg = segments[index] ?? '';
  const body = seg.replace(/=+$/, '');
  const alphabet = alphabetOf(seg);
  const last = alphabet === HEX ? body.length : body.length - 1;
  if (last < 1) return undefined;
  const pos = Math.min(last - 1, Math.max(0, Math.floor(body.length * fraction)));
  const ch = body[pos] as string;
  const chars = alphabet ?? 'abcdefghijklmnopqrstuvwxyz';
  for (const bit of [1, 4, 2, 8, 16, 32]) {
    const idx = chars.indexOf(ch);
    const repl = idx >= 0 ? chars[(idx ^ bit) % chars.length] : ch === 'x' ? 'y' : 'x';
    if (repl === undefined || repl === ch) continue;
    const changedSeg = body.slice(0, pos) + repl + body.slice(pos + 1) + seg.slice(body.length);
    if (
      alphabet !== undefined &&
      decodeWith(changedSeg, alphabet).equals(decodeWith(seg, alphabet))
    )
      continue;
    const out = [...segments];
    out[index] = changedSeg;
    return out.join('.');
  }
  return undefined;
}

/**
 * A random value of the same shape: same length, every letter or digit replaced by a random one of
 * the same alphabet, separators and a short leading prefix (`v1.`, `ws-`) kept.
 */
export function randomSameShape(value: string): string {
  const prefix = /^[A-Za-z]{1,4}[0-9]?[.:_-]/.exec(value)?.[0] ?? '';
  const rest = value.slice(prefix.length);
  const hex = /^[0-9a-f.:_-]+$/.test(rest);
  let out = '';
  for (const ch of rest) {
    if (hex && /[0-9a-f]/.test(ch)) out += HEX[randomInt(16)];
    else if (/[A-Za-z0-9]/.test(ch)) out += B64URL[randomInt(62)];
    else out += ch;
  }
  // Astronomically unlikely for a real blob, but a value that came back unchanged is no control.
  return out === rest && /[A-Za-z0-9]/.test(rest) ? randomSameShape(value) : prefix + out;
}
