/**
 * Where a value may be carried: a marker inside a string or a request in any encoding a client or
 * a server commonly wraps values in (raw, any letter case, base64 and base64url at any byte
 * alignment, hex, URL encoding, and nested decodings). Nothing here decides a verdict: the probes
 * use it to find where a control canary came back (`experiment.ts`), whether a handle spells the
 * record it names (`handle-trial.ts`), and what part of a refusal merely repeats the request.
 */
import { tokensOf } from './markers.js';

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

/**
 * The decodings of `s` one level deep: URL decoding, then each hex or base64(url) segment between
 * `.`, `:`, `~` and whitespace. Also read by `watch/state-shape.ts` to see what a state carries.
 */
export function decodings(s: string): string[] {
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

/** Whether a request (its params) carries `marker` anywhere, in any encoding. */
export function carries(request: unknown, marker: string): boolean {
  const walk = (v: unknown, depth: number): boolean => {
    if (depth > 32) return false;
    if (typeof v === 'string') return stringCarries(v, marker);
    if (typeof v === 'number' || typeof v === 'boolean') return String(v) === marker;
    if (Array.isArray(v)) return v.some((item) => walk(item, depth + 1));
    if (typeof v === 'object' && v !== null) {
      return Object.entries(v).some(
        ([k, item]) => stringCarries(k, marker, 0) || walk(item, depth + 1),
      );
    }
    return false;
  };
  return walk(request, 0);
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
