/**
 * The echo rule, the one place that decides whether a marker in an answer is evidence: a marker
 * counts only when it is not derivable from what that same request carried. The request is searched
 * field by field in every encoding (raw, base64 and base64url at any byte alignment, hex, URL
 * encoding, and one decoding deeper); the answer wherever the marker may sit (any offset of any
 * text, JSON after prose or in a code fence, structured content, resource contents).
 *
 * One asymmetry, and why: a `requestState` is searched raw only, because a field the server
 * *decoded* out of the state and acted on is exactly what the state probes look for. Unless the
 * answer repeats the decoded state whole (as JSON anywhere, whatever the key order or indentation,
 * or as every key and value named in any layout): then the server only shows back what it was sent,
 * and the state is searched in every encoding like any other field. Every probe and every control
 * judges markers through this module.
 */
import { decodeBlob } from '../trials/mutate.js';
import { MAX_TEXT, markersShown, shows, textOf, tokensOf, type Marker } from './markers.js';

/**
 * The base64 forms of `marker` at each of the three byte alignments it can take inside a longer
 * encoded value, with the edge characters that depend on neighbouring bytes cut off. A canary in
 * the middle of a base64 blob is not `base64(canary)`; it is one of these.
 */
export function base64Cores(marker: string): string[] {
  const out: string[] = [];
  for (let pad = 0; pad < 3; pad++) {
    // Stryker disable next-line StringLiteral: utf8 is Buffer.from's default encoding.
    const bytes = Buffer.concat([Buffer.alloc(pad), Buffer.from(marker, 'utf8')]);
    const enc = bytes.toString('base64').replace(/=+$/, '');
    const head = Math.ceil((pad * 8) / 6);
    const tail = bytes.length % 3 === 0 ? 0 : 1;
    const core = enc.slice(head, enc.length - tail);
    if (core.length >= 4) out.push(core);
  }
  return out;
}

const B64_SEGMENT = /^[A-Za-z0-9+/_-]{8,}={0,2}$/;
const HEX_SEGMENT = /^(?:[0-9a-fA-F]{2}){4,}$/;

function decodings(s: string): string[] {
  const out: string[] = [];
  if (s.includes('%')) {
    try {
      out.push(decodeURIComponent(s));
    } catch {
      // Not URL-encoded after all.
    }
  }
  for (const part of s.split(/[.:~\s]+/)) {
    if (HEX_SEGMENT.test(part)) out.push(Buffer.from(part, 'hex').toString('latin1'));
    if (B64_SEGMENT.test(part)) {
      out.push(
        Buffer.from(part.replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('latin1'),
      );
    }
  }
  return out;
}

/** Whether one string carries `marker` in any encoding (one nested decoding deep). */
export function stringCarries(s: string, marker: string, depth = 2): boolean {
  if (marker.length === 0) return false;
  if (s.includes(marker)) return true;
  const lower = s.toLowerCase();
  if (lower.includes(marker.toLowerCase())) return true;
  if (lower.includes(Buffer.from(marker, 'utf8').toString('hex'))) return true;
  const url = encodeURIComponent(marker);
  if (url !== marker && s.includes(url)) return true;
  const urlSafe = s.replace(/-/g, '+').replace(/_/g, '/');
  if (base64Cores(marker).some((core) => urlSafe.includes(core))) return true;
  return depth > 0 && decodings(s).some((d) => d !== s && stringCarries(d, marker, depth - 1));
}

/** Options of {@link carries}. */
export interface CarryOptions {
  /**
   * Keys whose string values are searched raw only. `requestState` is one: a state probe's whole
   * point is whether the server *reads* the blob it gets back, so a field the server decoded out of
   * the state and named in its answer is the server acting on it; repeating the blob verbatim (an
   * echo) still shows nothing, because the raw blob does not contain the decoded field, and an
   * answer that repeats the whole decoded blob makes it searched in every encoding again
   * ({@link echoAware}).
   */
  readonly rawOnlyKeys?: readonly string[];
}

/**
 * The options with every raw-only key dropped whose value `answer` repeats *decoded and whole*.
 * Searching a `requestState` raw lets a field the server decoded and acted on count; but a server
 * that echoes the whole decoded blob back acts on nothing, and every field of the blob would "come
 * back" from it. So for such an answer the blob is searched in every encoding like any argument.
 *
 * "Whole" is structural, not textual: somewhere in the answer (an object, or JSON inside a string,
 * however it is indented) sits an object holding every field of the decoded blob with its value.
 * A byte comparison would miss an echo that pretty-prints or sorts the keys, and confirm on it. A
 * server that repeats only some decoded fields is indistinguishable from one that acts on them, and
 * is read as acting.
 */
export function echoAware(answer: unknown, request: unknown, options: CarryOptions): CarryOptions {
  // Stryker disable next-line ArrayDeclaration: a raw-only key no request has is never echoed.
  const rawOnly = options.rawOnlyKeys ?? [];
  // Stryker disable next-line ConditionalExpression: with no raw-only key nothing is echoed; this return only saves the walk.
  if (rawOnly.length === 0) return options;
  const echoed = new Set<string | undefined>();
  const views = answerViews(answer);
  const walk = (v: unknown, key: string | undefined, depth: number): void => {
    if (depth > 32) return;
    if (typeof v === 'string' && (rawOnly as readonly (string | undefined)[]).includes(key)) {
      const decoded = decodeBlob(v);
      if (
        decoded !== undefined &&
        views.some((view) => holdsWhole(view, decoded.value) || namesEvery(view, decoded.value))
      )
        echoed.add(key);
    } else if (typeof v === 'object' && v !== null) {
      for (const [k, item] of Object.entries(v)) walk(item, Array.isArray(v) ? key : k, depth + 1);
    }
  };
  walk(request, undefined, 0);
  return echoed.size === 0 ? options : { rawOnlyKeys: rawOnly.filter((k) => !echoed.has(k)) };
}

/**
 * The answer, and what its strings say once decoded: URL-encoded text and base64 or base64url
 * runs (long enough to hide a state, decoding to printable text). A server that echoes the request
 * URL-encoded in a link, or base64 in a trace line, still echoes it.
 */
export function answerViews(answer: unknown): unknown[] {
  const views: unknown[] = [answer];
  let budget = 64;
  const walk = (v: unknown, depth: number): void => {
    if (depth > 16) return;
    // Stryker disable next-line ConditionalExpression,EqualityOperator: each push below checks the budget itself; this return only saves the walk.
    if (budget <= 0) return;
    if (typeof v === 'string') {
      if (v.includes('%')) {
        try {
          const decoded = decodeURIComponent(v.replace(/\+/g, ' '));
          // A string that decodes without throwing held an escape, so `decoded` differs from it.
          if (budget-- > 0) views.push(decoded);
        } catch {
          // Not URL-encoded after all.
        }
      }
      // Stryker disable next-line ArrayDeclaration: any stand-in string decodes to unprintable bytes, read as no view.
      for (const run of v.match(/[A-Za-z0-9+/_-]{16,}={0,2}/g) ?? []) {
        const text = Buffer.from(run.replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString(
          'utf8',
        );
        if (/^[\t\n\r\x20-\x7e]+$/.test(text) && budget-- > 0) views.push(text);
      }
    } else if (typeof v === 'object' && v !== null) {
      // An array's values are its items.
      for (const item of Object.values(v)) walk(item, depth + 1);
    }
  };
  walk(answer, 0);
  return views;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The same JSON value, whatever the order of object keys. */
function sameJson(a: unknown, b: unknown, depth = 0): boolean {
  if (depth > 32) return false;
  // Stryker disable next-line LogicalOperator: with one array and one not, the rest compares them as unequal too.
  if (Array.isArray(a) || Array.isArray(b)) {
    return (
      Array.isArray(a) &&
      Array.isArray(b) &&
      a.length === b.length &&
      a.every((item, i) => sameJson(item, b[i], depth + 1))
    );
  }
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = Object.keys(b);
    return (
      Object.keys(a).length === keys.length &&
      keys.every((k) => Object.hasOwn(a, k) && sameJson(a[k], b[k], depth + 1))
    );
  }
  return a === b;
}

/** Whether `node` holds every field of `whole` with the same value (extra fields allowed). */
function covers(node: Record<string, unknown>, whole: Record<string, unknown>): boolean {
  return Object.entries(whole).every(([k, v]) => Object.hasOwn(node, k) && sameJson(node[k], v));
}

/**
 * The JSON values written inside a text at any offset: after a prose header, in a Markdown code
 * fence, pretty-printed or not. Each `{` or `[` is matched to its closing bracket (string-aware) and
 * parsed; a parsed value's span is skipped. Bounded in starts tried and in text length.
 */
export function jsonIn(text: string, maxStarts = 64): unknown[] {
  const out: unknown[] = [];
  const t = text.slice(0, MAX_TEXT);
  let starts = 0;
  for (let i = 0; i < t.length && starts < maxStarts; i++) {
    const c = t[i];
    if (c !== '{' && c !== '[') continue;
    starts++;
    const end = closingBracket(t, i);
    // Stryker disable next-line ConditionalExpression,EqualityOperator: t.slice(i, -1 + 1) is '', which JSON.parse refuses below.
    if (end < 0) continue;
    try {
      out.push(JSON.parse(t.slice(i, end + 1)) as unknown);
      i = end;
    } catch {
      // Not JSON from here; try the next bracket.
    }
  }
  return out;
}

/** The index of the bracket closing the one at `start`, skipping JSON strings; -1 when none. */
function closingBracket(t: string, start: number): number {
  let depth = 0;
  let inString = false;
  // Stryker disable next-line EqualityOperator: t[t.length] is undefined, which matches no branch.
  for (let i = start; i < t.length; i++) {
    const c = t[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      depth--;
      if (depth === 0) return i;
    }
  }
  // Stryker disable next-line UnaryOperator: jsonIn reads any end before the start as nothing parsed.
  return -1;
}

/**
 * Whether `answer` holds `whole` somewhere: as an object at any depth, or as JSON written anywhere
 * inside any string (after prose, in a code fence, as JSON text inside a JSON string).
 */
function holdsWhole(answer: unknown, whole: Record<string, unknown>): boolean {
  if (Object.keys(whole).length === 0) return false;
  let budget = 10_000;
  const walk = (v: unknown, depth: number): boolean => {
    if (depth > 32 || budget-- <= 0) return false;
    if (typeof v === 'string') {
      // Stryker disable next-line Regex: a text of only [ and { holds no JSON value either.
      if (v.length > MAX_TEXT || !/[[{]/.test(v)) return false;
      return jsonIn(v).some((parsed) => walk(parsed, depth + 1));
    }
    if (Array.isArray(v)) return v.some((item) => walk(item, depth + 1));
    if (!isPlainObject(v)) return false;
    return covers(v, whole) || Object.values(v).some((item) => walk(item, depth + 1));
  };
  return walk(answer, 0);
}

/**
 * Whether `answer` names every key and every string value of `whole` (at least three of them) as
 * tokens, whatever the layout: `key: value` lines, a table, YAML. A tool that prints a decoded
 * state field by field echoes it as surely as one that prints its JSON.
 */
function namesEvery(answer: unknown, whole: Record<string, unknown>): boolean {
  const wanted = new Set<string>();
  const walk = (v: unknown, depth: number): void => {
    if (depth > 8) return;
    if (typeof v === 'string') for (const t of tokensOf(v)) wanted.add(t);
    else if (typeof v === 'object' && v !== null) {
      // An array's keys are its indices: digits, which are never tokens.
      for (const [k, item] of Object.entries(v)) {
        for (const t of tokensOf(k)) wanted.add(t);
        walk(item, depth + 1);
      }
    }
  };
  walk(whole, 0);
  if (wanted.size < 3) return false;
  // Substrings, not tokens: `state.principal: alice` names the key inside a dotted path. Looser
  // matching only ever reads more answers as echoes, which can only withhold a confirmation.
  const text = textOf(answer);
  return [...wanted].every((t) => text.includes(t));
}

/** Whether a request (its params) carries `marker` anywhere, in any encoding. */
export function carries(request: unknown, marker: string, options: CarryOptions = {}): boolean {
  // Stryker disable next-line ArrayDeclaration: a raw-only key no request has changes nothing.
  const rawOnly = new Set<string | undefined>(options.rawOnlyKeys ?? []);
  const walk = (v: unknown, key: string | undefined, depth: number): boolean => {
    if (depth > 32) return false;
    if (typeof v === 'string') {
      return rawOnly.has(key) ? v.includes(marker) : stringCarries(v, marker);
    }
    if (typeof v === 'number' || typeof v === 'boolean') return String(v) === marker;
    if (Array.isArray(v)) return v.some((item) => walk(item, key, depth + 1));
    if (typeof v === 'object' && v !== null) {
      return Object.entries(v).some(
        ([k, item]) => stringCarries(k, marker, 0) || walk(item, k, depth + 1),
      );
    }
    return false;
  };
  return walk(request, undefined, 0);
}

/** A marker counts when the answer shows it and the request that drew the answer did not carry it. */
export function markerCounts(
  marker: string,
  answer: unknown,
  request: unknown,
  options: CarryOptions = {},
): boolean {
  return shows(answer, marker) && !carries(request, marker, echoAware(answer, request, options));
}

/** Whether `answer` shows any of `tokens` as a whole token not carried by `request`. */
export function showsToken(
  answer: unknown,
  tokens: readonly string[],
  request: unknown,
  options: CarryOptions = {},
): string | undefined {
  const seen = tokensOf(answer);
  const opts = echoAware(answer, request, options);
  return tokens.find((t) => seen.has(t) && !carries(request, t, opts));
}

/**
 * The markers that count in `answer` (shown, and not carried by `request`) and that none of the
 * `baselines` shows. A baseline is what the same sender sees without the thing under test (its own
 * records, a forged handle, its own state): a marker it shows reaches that sender anyway, through
 * a public feed or a shared view, so seeing it again proves nothing about the handle or the state.
 */
export function attributable(
  markers: readonly Marker[],
  answer: unknown,
  request: unknown,
  baselines: readonly unknown[],
  options: CarryOptions = {},
): { counted: Marker[]; attributed: Marker[] } {
  const opts = echoAware(answer, request, options);
  // Each answer is read once, whatever the number of markers.
  const counted = markersShown(answer, markers).filter((m) => !carries(request, m.value, opts));
  const seen = new Set(baselines.flatMap((b) => markersShown(b, counted)));
  const attributed = counted.filter((m) => !seen.has(m));
  return { counted, attributed };
}

/**
 * `text` with every word-like token of at least `minLength` characters that the request carried
 * (in any encoding) replaced by `…`: what a server said of its own, as opposed to what it quoted
 * back. Two refusals that differ only in the part of the request they repeat say nothing different.
 * Short words are kept: a random blob carries some three-letter word somewhere, by chance, and
 * cutting it out of one answer and not the other would make two alike answers differ.
 */
export function withoutEcho(text: string, request: unknown, minLength = 8): string {
  let out = text;
  const echoed = [...tokensOf(text)].filter((t) => t.length >= minLength && carries(request, t));
  // Longest first, so a token inside a longer echoed one is not cut out of it first.
  for (const t of echoed.sort((a, b) => b.length - a.length)) out = out.split(t).join('…');
  return out;
}
