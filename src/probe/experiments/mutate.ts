/**
 * Changing a `requestState` the way an attacker would: every field of a readable state in turn
 * (whatever its name; names only decide the order, most telling first), a few characters of an
 * opaque one, and a random blob of the same shape for the negative control.
 *
 * A readable state is raw JSON, base64url or base64 JSON, `body.signature`, `v1.body.mac` or a JWS,
 * and JSON held inside a string field is opened too. What an attacker does with it, and so what is
 * planned here: change one value (a string to a canary, a number ×1000, a boolean flipped); put a
 * later round's value into an earlier round's state (a `step` that skips an approval round); send
 * a JWS with `alg: none` and an emptied signature, or with a header field changed; and where the
 * state carries an unkeyed digest of its own body (`sha256`, `md5` …), recompute it.
 *
 * Two traps a weaker tamper falls into. Appending `-TAMPERED` or flipping the low bits of the last
 * base64 character changes nothing a forgiving decoder reads, so "accepted" would prove nothing:
 * every flip here is checked to change the decoded bytes. And a re-signed envelope tests the
 * encoder, not the server: a signature is left exactly as issued (or emptied, for `alg: none`).
 *
 * Bounded by the input: at most {@link MAX_LEAVES} fields are read of a state, at most
 * {@link MAX_DEPTH} deep, whatever the server sends.
 */
import { createHash, randomInt } from 'node:crypto';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
const isObject = (v: unknown): v is { [k: string]: Json } =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Most fields of one state read (and so changed). */
export const MAX_LEAVES = 128;
/** Deepest field of a state read. */
export const MAX_DEPTH = 12;
/** Longest state decoded at all. */
const MAX_BLOB = 256 * 1024;

/** How the JSON segment of a blob is written. */
export type SegmentEncoding = 'json' | 'base64url' | 'base64';

/** An unkeyed digest a state carries of its own body, which a client can recompute. */
export type Digest =
  | {
      readonly at: 'segment';
      readonly segment: number;
      readonly algorithm: string;
      readonly encoding: 'hex' | 'base64' | 'base64url';
      /** Over the body segment as written, or over the JSON text it decodes to. */
      readonly over: 'encoded' | 'text';
    }
  | {
      readonly at: 'field';
      readonly field: string;
      readonly algorithm: string;
      readonly encoding: 'hex' | 'base64' | 'base64url';
    };

/** A blob that decodes to a JSON object in one of its `.`-separated segments. */
export interface DecodedBlob {
  readonly segments: readonly string[];
  readonly index: number;
  readonly encoding: SegmentEncoding;
  readonly value: { [k: string]: Json };
  /** A JWS's header, when the blob is one. */
  readonly jws?: { readonly header: { [k: string]: Json } };
  /** The unkeyed digest of its body it carries, when it carries one. */
  readonly digest?: Digest;
  /** Fields that are an unkeyed digest of another field of the same object. */
  readonly fieldDigests?: readonly FieldDigest[];
}

/**
 * A field that is an unkeyed digest of another string field beside it (`account_sha256` of
 * `account`): a client recomputes it after changing that field, as it does a digest of the body.
 */
export interface FieldDigest {
  /** Where the object holding both fields sits (`[]` for the top level). */
  readonly holder: readonly (string | number)[];
  /** The field digested, and the field holding its digest. */
  readonly source: string;
  readonly field: string;
  readonly algorithm: string;
  readonly encoding: Digest['encoding'];
}

/** JSON text of a value, or `undefined` when it cannot be written (too deep for the stack). */
function stringify(value: Json): string | undefined {
  try {
    return JSON.stringify(value);
  } catch {
    return undefined;
  }
}

function parseObject(text: string): { [k: string]: Json } | undefined {
  try {
    const v: unknown = JSON.parse(text);
    return isObject(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

const ALGORITHMS = ['sha256', 'sha1', 'md5', 'sha512', 'sha384'];
const DIGEST_ENCODINGS = ['hex', 'base64', 'base64url'] as const;
const digestOf = (algorithm: string, text: string, encoding: Digest['encoding']): string =>
  createHash(algorithm).update(text).digest(encoding);

/** Which unkeyed digest `candidate` is of `text`, if any. */
function matchDigest(
  candidate: string,
  text: string,
): { algorithm: string; encoding: Digest['encoding'] } | undefined {
  if (candidate.length < 16 || candidate.length > 200) return undefined;
  const bare = candidate.replace(/=+$/, '');
  for (const algorithm of ALGORITHMS)
    for (const encoding of DIGEST_ENCODINGS) {
      const d = digestOf(algorithm, text, encoding);
      if (d === candidate || d.replace(/=+$/, '') === bare) return { algorithm, encoding };
    }
  return undefined;
}

function findDigest(
  segments: readonly string[],
  index: number,
  value: { [k: string]: Json },
  text: string,
): Digest | undefined {
  for (const [i, seg] of segments.entries()) {
    if (i === index) continue;
    for (const over of ['encoded', 'text'] as const) {
      const m = matchDigest(seg, over === 'encoded' ? (segments[index] ?? '') : text);
      if (m !== undefined) return { at: 'segment', segment: i, over, ...m };
    }
  }
  let tried = 0;
  for (const [field, v] of Object.entries(value)) {
    if (typeof v !== 'string') continue;
    if (v.length < 16 || v.length > 200 || ++tried > 16) continue;
    const rest = { ...value };
    delete rest[field];
    const text = stringify(rest);
    const m = text === undefined ? undefined : matchDigest(v, text);
    if (m !== undefined) return { at: 'field', field, ...m };
  }
  return undefined;
}

/** Most (digest, field) pairs hashed when looking for digests of single fields, per state. */
const MAX_FIELD_PAIRS = 32;
/** Longest field whose digest is looked for. */
const MAX_DIGESTED = 16 * 1024;

/**
 * Every field that is an unkeyed digest (an algorithm and encoding {@link matchDigest} knows) of a
 * string field of the same object, at any depth up to {@link MAX_DEPTH}; at most
 * {@link MAX_FIELD_PAIRS} pairs are hashed, whatever the state holds.
 */
function findFieldDigests(value: Json): FieldDigest[] {
  const out: FieldDigest[] = [];
  let pairs = 0;
  const walk = (v: Json, holder: (string | number)[], depth: number): void => {
    if (pairs >= MAX_FIELD_PAIRS || depth > MAX_DEPTH) return;
    if (Array.isArray(v)) {
      v.forEach((item, i) => walk(item, [...holder, i], depth + 1));
      return;
    }
    if (!isObject(v)) return;
    const strings = Object.entries(v).filter(
      (e): e is [string, string] => typeof e[1] === 'string',
    );
    for (const [field, candidate] of strings) {
      if (candidate.length < 16 || candidate.length > 200) continue;
      for (const [source, text] of strings) {
        if (source === field || text.length > MAX_DIGESTED || ++pairs > MAX_FIELD_PAIRS) continue;
        const m = matchDigest(candidate, text);
        if (m !== undefined) out.push({ holder, source, field, ...m });
      }
    }
    for (const [k, item] of Object.entries(v)) walk(item, [...holder, k], depth + 1);
  };
  walk(value, [], 0);
  return out;
}

/**
 * `value` with every field digest recomputed whose source field differs from the one `decoded`
 * was issued with (and whose digest field is still as issued: a change of the digest itself
 * stands).
 */
function refreshFieldDigests(decoded: DecodedBlob, value: Json): Json {
  let out = value;
  for (const fd of decoded.fieldDigests ?? []) {
    const before = valueAt(decoded.value, fd.holder);
    const after = valueAt(out, fd.holder);
    if (!isObject(before) || !isObject(after)) continue;
    const source = after[fd.source];
    if (typeof source !== 'string' || source === before[fd.source]) continue;
    if (after[fd.field] !== before[fd.field]) continue;
    const digest = digestOf(fd.algorithm, source, fd.encoding);
    out = setAt(out, [...fd.holder, fd.field], () => digest) ?? out;
  }
  return out;
}

/**
 * The blobs decoded last, most recent first. A trial decodes the same issued state once per
 * mutation it applies, and decoding is linear in the state but not cheap (a parse, and the digest
 * search hashes the body several times over): remembering a few keeps a large state's cost at a
 * few decodes per scan instead of one per request. Decoded values are never changed (every edit
 * copies on write), so sharing one is safe.
 */
const recent: { blob: string; decoded: DecodedBlob | undefined }[] = [];
const RECENT = 4;

/** Decode a blob: raw JSON, base64url/base64 JSON, `body.signature`, `v1.body.mac`, or JWS. */
export function decodeBlob(blob: string): DecodedBlob | undefined {
  if (blob.length > MAX_BLOB) return undefined;
  const at = recent.findIndex((r) => r.blob === blob);
  if (at >= 0) {
    const [hit] = recent.splice(at, 1);
    recent.unshift(hit as (typeof recent)[number]);
    return hit?.decoded;
  }
  const decoded = decodeFresh(blob);
  recent.unshift({ blob, decoded });
  if (recent.length > RECENT) recent.pop();
  return decoded;
}

function decodeFresh(blob: string): DecodedBlob | undefined {
  const whole = parseObject(blob);
  if (whole !== undefined) {
    const digest = findDigest([blob], 0, whole, blob);
    return withFieldDigests({
      segments: [blob],
      index: 0,
      encoding: 'json',
      value: whole,
      ...(digest === undefined ? {} : { digest }),
    });
  }
  const segments = blob.split('.');
  if (segments.length > 8) return undefined;
  // JWS compact puts the claims second; everything else puts the body first.
  const order = segments.length === 3 ? [1, 0, 2] : segments.map((_, i) => i);
  for (const index of order) {
    const seg = segments[index] ?? '';
    if (seg.length < 4) continue;
    for (const encoding of ['base64url', 'base64'] as const) {
      const alphabet = encoding === 'base64url' ? /^[A-Za-z0-9_-]+$/ : /^[A-Za-z0-9+/]+={0,2}$/;
      if (!alphabet.test(seg)) continue;
      const text = Buffer.from(seg, encoding).toString('utf8');
      const value = parseObject(text);
      if (value === undefined) continue;
      const header =
        segments.length === 3 && index === 1
          ? parseObject(Buffer.from(segments[0] ?? '', 'base64url').toString('utf8'))
          : undefined;
      const jws =
        header !== undefined && typeof header['alg'] === 'string' ? { header } : undefined;
      const digest = jws === undefined ? findDigest(segments, index, value, text) : undefined;
      return withFieldDigests({
        segments,
        index,
        encoding,
        value,
        ...(jws === undefined ? {} : { jws }),
        ...(digest === undefined ? {} : { digest }),
      });
    }
  }
  return undefined;
}

function withFieldDigests(decoded: DecodedBlob): DecodedBlob {
  const found = findFieldDigests(decoded.value);
  return found.length === 0 ? decoded : { ...decoded, fieldDigests: found };
}

function encodeSegment(text: string, encoding: SegmentEncoding, original: string): string {
  if (encoding === 'base64url') return Buffer.from(text).toString('base64url');
  if (encoding === 'base64') {
    const seg = Buffer.from(text).toString('base64');
    return original.endsWith('=') ? seg : seg.replace(/=+$/, '');
  }
  return text;
}

/** How a changed state is re-encoded beyond its value. */
export interface EncodeOptions {
  /** A JWS sent with `alg: none` and an emptied signature. */
  readonly algNone?: boolean;
  /** A JWS sent with this header instead (its signature as issued). */
  readonly header?: { [k: string]: Json };
}

/**
 * Re-encode a decoded blob with a new value: every other segment (the signature) as issued, unless
 * the options say otherwise; an unkeyed digest the blob carries is recomputed over the new body.
 */
export function encodeBlob(
  decoded: DecodedBlob,
  value: Json,
  options: EncodeOptions = {},
): string | undefined {
  let body = refreshFieldDigests(decoded, value);
  const digest = decoded.digest;
  if (digest?.at === 'field' && isObject(body)) {
    const rest = { ...body };
    delete rest[digest.field];
    body = {
      ...body,
      [digest.field]: digestOf(digest.algorithm, stringify(rest) ?? '', digest.encoding),
    };
  }
  const text = stringify(body);
  if (text === undefined) return undefined;
  const segments = [...decoded.segments];
  const original = segments[decoded.index] ?? '';
  segments[decoded.index] = encodeSegment(text, decoded.encoding, original);
  if (digest?.at === 'segment') {
    const over = digest.over === 'encoded' ? (segments[decoded.index] ?? '') : text;
    segments[digest.segment] = digestOf(digest.algorithm, over, digest.encoding);
  }
  if (decoded.jws !== undefined && (options.algNone === true || options.header !== undefined)) {
    const header = options.header ?? { ...decoded.jws.header, alg: 'none' };
    segments[0] = Buffer.from(JSON.stringify(header)).toString('base64url');
    if (options.algNone === true) segments[2] = '';
  }
  return segments.join('.');
}

/** One planned change, re-applicable to a fresh blob of the same structure. */
export interface Mutation {
  /** E.g. `user → canary`, `quantity ×1000`, `step ← round 2's value`, `byte flip at 40%`. */
  readonly label: string;
  /** The value planted, when it is a string the answer might show. */
  readonly marker?: string;
  /** The changed blob, or `undefined` when this blob has no such field. */
  apply(blob: string): string | undefined;
  /**
   * The same change with a control canary planted in a field the server has never seen, beside
   * the changed one: a server that shows back the whole state shows the control too. Absent for an
   * opaque blob, which has no fields to plant beside.
   */
  withControl?(blob: string, control: string): string | undefined;
}

/** A path step that opens a string holding JSON. */
const OPEN_JSON = { json: true } as const;
type Step = string | number | typeof OPEN_JSON;

const PRINCIPAL =
  /^(principal|owner|user|username|userid|user_?id|sub|subject|actor|caller|account|uid|asked_?by|created_?by|client_?id|email|who|login|member)$/i;
const ROLE = /^(role|roles|scope|scopes|permission|permissions|group|groups|tier|plan|level)$/i;
const APPROVAL = /(approv|confirm|authori|allow|verif|admin|grant|consent|accept|paid|trusted)/i;
const AMOUNT =
  /(amount|count|qty|quantity|limit|max|total|price|balance|credit|quota|size|items|value)/i;
const EXPIRY =
  /^(exp|expires?|expiry|expires_?at|expiration|ttl|deadline|not_?after|valid_?until|iat|nbf)$/i;
/**
 * A token's own bookkeeping: RFC 7519's registered claims other than `sub` (the times above, and
 * who issued it, for whom, its id), and a nonce or a format version. A verifier checks them or it
 * does not; a business answer rarely turns on them, and `state/expiry` tests the times on their
 * own. Changed last, so that they never starve the fields an answer does turn on.
 */
const BOOKKEEPING = /^(iss|issuer|aud|audience|jti|nonce|typ|cty|kid|ver|version)$/i;

/** The fields of a state, bounded, JSON inside strings opened. */
function leaves(value: Json): [Step[], Json][] {
  const out: [Step[], Json][] = [];
  const walk = (v: Json, path: Step[], depth: number): void => {
    if (out.length >= MAX_LEAVES || depth > MAX_DEPTH) return;
    if (Array.isArray(v)) v.forEach((item, i) => walk(item, [...path, i], depth + 1));
    else if (isObject(v))
      for (const [k, item] of Object.entries(v)) walk(item, [...path, k], depth + 1);
    else if (typeof v === 'string' && /^\s*[[{]/.test(v)) {
      const inner = openJson(v);
      if (inner === undefined) out.push([path, v]);
      else walk(inner, [...path, OPEN_JSON], depth + 1);
    } else out.push([path, v]);
  };
  walk(value, [], 0);
  return out;
}

function openJson(s: string): Json | undefined {
  if (s.length > MAX_BLOB) return undefined;
  try {
    const v = JSON.parse(s) as Json;
    return typeof v === 'object' && v !== null ? v : undefined;
  } catch {
    return undefined;
  }
}

function keyOf(path: readonly Step[]): string {
  for (let i = path.length - 1; i >= 0; i--) {
    const step = path[i];
    if (typeof step === 'string') return step;
  }
  return '';
}

const label = (path: readonly Step[]): string =>
  path.map((s) => (typeof s === 'object' ? '(json)' : String(s))).join('.') || '(root)';

/** `value` with the field at `path` replaced by `next(old)` (copy on write); `undefined` when absent. */
function setAt(
  value: Json,
  path: readonly Step[],
  next: (old: Json) => Json | undefined,
): Json | undefined {
  const [step, ...rest] = path;
  if (step === undefined) {
    const changed = next(value);
    return changed === undefined || typeof changed !== typeof value ? undefined : changed;
  }
  if (typeof step === 'object') {
    if (typeof value !== 'string') return undefined;
    const inner = openJson(value);
    if (inner === undefined) return undefined;
    const changed = setAt(inner, rest, next);
    return changed === undefined ? undefined : stringify(changed);
  }
  if (Array.isArray(value) && typeof step === 'number') {
    if (step >= value.length) return undefined;
    const changed = setAt(value[step] as Json, rest, next);
    if (changed === undefined) return undefined;
    const copy = [...value];
    copy[step] = changed;
    return copy;
  }
  if (isObject(value) && typeof step === 'string' && Object.hasOwn(value, step)) {
    const changed = setAt(value[step] as Json, rest, next);
    return changed === undefined ? undefined : { ...value, [step]: changed };
  }
  return undefined;
}

/** The object holding the field at `path` (its parent), given a control field beside it. */
function plantBeside(
  value: Json,
  path: readonly Step[],
  key: string,
  control: string,
): Json | undefined {
  // The nearest enclosing object: walk up past array indices.
  let parent = path.slice(0, -1);
  while (parent.length > 0 && typeof parent[parent.length - 1] === 'number')
    parent = parent.slice(0, -1);
  const add = (holder: Json): Json | undefined =>
    isObject(holder) ? { ...holder, [key]: control } : undefined;
  if (parent.length === 0) return add(value);
  return setAt(value, parent, (holder) => add(holder));
}

/** The value at `path` of a state, or `undefined`. */
function valueAt(value: Json, path: readonly Step[]): Json | undefined {
  let node: Json | undefined = value;
  for (const step of path) {
    if (node === undefined || node === null) return undefined;
    if (typeof step === 'object') node = typeof node === 'string' ? openJson(node) : undefined;
    else if (Array.isArray(node) && typeof step === 'number') node = node[step];
    else if (isObject(node) && typeof step === 'string') node = node[step];
    else return undefined;
  }
  return node;
}

type Change = {
  readonly rank: number;
  readonly path: Step[];
  readonly label: string;
  readonly next: (old: Json) => Json | undefined;
  readonly marker?: string;
};

/**
 * Every change of every field, ranked: principal, a later round's value, role, approval, amount,
 * the rest, and last a token's bookkeeping (its times, issuer, audience, id).
 */
function changesFor(value: Json, canary: string, later: readonly Json[]): Change[] {
  const out: Change[] = [];
  for (const [path, leaf] of leaves(value)) {
    const key = keyOf(path);
    const at = label(path);
    for (const next of later) {
      const v = valueAt(next, path);
      if (
        v !== undefined &&
        v !== null &&
        typeof v !== 'object' &&
        v !== leaf &&
        typeof v === typeof leaf
      )
        out.push({
          rank: 1,
          path,
          label: `${at} ← a later round's value (${JSON.stringify(v).slice(0, 40)})`,
          next: () => v,
        });
    }
    if (typeof leaf === 'string') {
      const rank = PRINCIPAL.test(key) ? 0 : ROLE.test(key) ? 2 : BOOKKEEPING.test(key) ? 8 : 6;
      out.push({ rank, path, label: `${at} → canary`, next: () => canary, marker: canary });
      if (ROLE.test(key)) out.push({ rank: 2, path, label: `${at} → admin`, next: () => 'admin' });
    } else if (typeof leaf === 'boolean') {
      const rank = APPROVAL.test(key) ? 3 : 7;
      out.push({ rank, path, label: `${at}: ${String(leaf)} → ${String(!leaf)}`, next: (o) => !o });
    } else if (typeof leaf === 'number') {
      if (EXPIRY.test(key))
        out.push({ rank: 8, path, label: `${at}: +10^7`, next: (o) => (o as number) + 1e7 });
      else
        out.push({
          rank: AMOUNT.test(key) ? 4 : 7,
          path,
          label: `${at}: ×1000`,
          next: (o) => ((o as number) || 1) * 1000,
        });
    }
  }
  // Array.prototype.sort is stable: within a rank, fields keep their order in the blob.
  return out.sort((a, b) => a.rank - b.rank);
}

/** Options of {@link planMutations}. */
export interface PlanOptions {
  /** The states later rounds of the same flow handed out, untouched: their values are tried in this one. */
  readonly later?: readonly string[];
  /** Character flips of an opaque blob. */
  readonly flips?: number;
}

/**
 * The mutations of a blob, most telling first (see the module comment); character flips at
 * `flips` spread offsets of its longest segment when it does not decode.
 */
export function planMutations(blob: string, canary: string, options: PlanOptions = {}): Mutation[] {
  const decoded = decodeBlob(blob);
  const flips = options.flips ?? 5;
  if (decoded === undefined) {
    return Array.from({ length: flips }, (_, i) => {
      const at = (i + 1) / (flips + 1);
      return {
        label: `character flip at ${Math.round(at * 100)}% of the blob`,
        apply: (f) => flipAt(f, at),
      };
    });
  }
  const later = (options.later ?? [])
    .map((s) => decodeBlob(s)?.value)
    .filter((v) => v !== undefined);
  const out: Mutation[] = [];
  const controlKey = `sg_control_${randomInt(1 << 30).toString(36)}`;
  const fieldChange = (c: Change, encode: EncodeOptions, suffix: string): Mutation => {
    const build = (fresh: string, control?: string): string | undefined => {
      const d = decodeBlob(fresh);
      if (d === undefined || d.index !== decoded.index) return undefined;
      const changed = setAt(d.value, c.path, c.next);
      if (changed === undefined) return undefined;
      const planted =
        control === undefined ? changed : plantBeside(changed, c.path, controlKey, control);
      return planted === undefined ? undefined : encodeBlob(d, planted, encode);
    };
    return {
      label: `${c.label}${suffix}`,
      ...(c.marker === undefined ? {} : { marker: c.marker }),
      apply: (fresh) => build(fresh),
      withControl: (fresh, control) => build(fresh, control),
    };
  };
  const digestNote =
    decoded.digest === undefined ? '' : ` (its ${decoded.digest.algorithm} digest recomputed)`;
  const sourceNote = (c: Change): string => {
    const fd = decoded.fieldDigests?.find(
      (d) => label([...d.holder, d.source]) === label(c.path) && !c.path.includes(OPEN_JSON),
    );
    return fd === undefined ? '' : ` (its ${fd.algorithm} in ${fd.field} recomputed)`;
  };
  for (const c of changesFor(decoded.value, canary, later)) {
    out.push(fieldChange(c, {}, `${sourceNote(c)}${digestNote}`));
    if (decoded.jws !== undefined && decoded.jws.header['alg'] !== 'none')
      out.push(fieldChange(c, { algNone: true }, ', as a JWS with alg none and no signature'));
  }
  if (decoded.jws !== undefined) {
    for (const [k, v] of Object.entries(decoded.jws.header)) {
      if (typeof v !== 'string' || k === 'alg') continue;
      out.push({
        label: `JWS header ${k} → canary`,
        marker: canary,
        apply: (fresh) => {
          const d = decodeBlob(fresh);
          return d?.jws === undefined
            ? undefined
            : encodeBlob(d, d.value, { header: { ...d.jws.header, [k]: canary } });
        },
      });
    }
  }
  return out;
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
 * A random last character for a base64url run of `length` characters: one whose unused low bits
 * are zero (a run of 4n+2 characters leaves 4 bits unused, of 4n+3 two), so the run is the one
 * spelling of the bytes it decodes to; any letter or digit for a run that leaves none.
 */
function canonicalLast(length: number): string {
  const step = length % 4 === 2 ? 16 : length % 4 === 3 ? 4 : 1;
  return B64URL[randomInt(Math.ceil(62 / step)) * step] as string;
}

/**
 * A random value of the same shape: same length, every letter or digit replaced by a random one of
 * the same alphabet, separators and a short leading prefix (`v1.`, `ws-`) kept. A run that may be
 * base64url ends in a character a canonical encoding could end in: a strict decoder reads the value
 * as random bytes, as it reads any real one, never as a misspelling (which it may refuse for a
 * reason of its own, one random value in a few, and so tell two random values apart).
 */
export function randomSameShape(value: string): string {
  const prefix = /^[A-Za-z]{1,4}[0-9]?[.:_-]/.exec(value)?.[0] ?? '';
  const rest = value.slice(prefix.length);
  const hex = /^[0-9a-f.:_-]+$/.test(rest);
  let out = '';
  const chars = [...rest];
  let run = 0;
  for (const [i, ch] of chars.entries()) {
    run = /[A-Za-z0-9_-]/.test(ch) ? run + 1 : 0;
    const ends = !/[A-Za-z0-9_-]/.test(chars[i + 1] ?? '.');
    if (hex && /[0-9a-f]/.test(ch)) out += HEX[randomInt(16)];
    else if (/[A-Za-z0-9]/.test(ch)) out += ends ? canonicalLast(run) : B64URL[randomInt(62)];
    else out += ch;
  }
  // Astronomically unlikely for a real blob, but a value that came back unchanged is no control.
  return out === rest && /[A-Za-z0-9]/.test(rest) ? randomSameShape(value) : prefix + out;
}

/**
 * `blob` unchanged but for a control canary in a field the server has never seen (top level of
 * the decoded state; any signature as issued, an unkeyed digest recomputed); `undefined` when the
 * blob does not decode.
 */
export function plantControl(blob: string, control: string): string | undefined {
  const d = decodeBlob(blob);
  if (d === undefined) return undefined;
  return encodeBlob(d, { ...d.value, [`sg_control_${randomInt(1 << 30).toString(36)}`]: control });
}
