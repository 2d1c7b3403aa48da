/**
 * Harvesting what a call mints, by difference: the same minting call sent twice (same arguments,
 * same canary, same identity) answers alike except where the server minted something (and where
 * its clock ticked). Every position where the two answers disagree is a candidate, wherever it
 * sits: text, prose, structured content at any depth, arrays of objects, result `_meta`, resource
 * links and embedded resources (`positions.ts` lines the answers up). Nothing here looks at the
 * characters a value is made of: a booking code in prose is found whatever letters it drew, and a
 * ticking clock is a candidate too, which the consumer's acceptance test later tells apart.
 *
 * A server whose mint is deterministic (a content hash: the same id twice) shows no difference.
 * Then the values its answer holds that the request did not carry are offered instead, ranked
 * after every varying value (`varying` unset), and bounded.
 *
 * A fresh mint's handle is the value at the same position of a fresh answer ({@link findLike}).
 */
import { leavesOf, valueAt, varyingValues } from '../evidence/positions.js';
import type { Varying } from '../model/surface-map.js';
import type { Found } from '../model/surface-map.js';

const MAX_VALUE = 4096;
const MAX_FOUND = 64;
/** Most values offered from one deterministic mint. */
export const MAX_HELD = 12;

// Where a result says what kind of result it is, carries the flow's state, or holds what the
// protocol's own `_meta` namespace says (the server's name and version): never a handle.
const PROTOCOL_PATHS =
  /^(?:requestState|resultType|isError)(?:$|[.#])|(?:^|\.)(?:type|mimeType)$|(?:^|\.)_meta\.io\.modelcontextprotocol\//;

/** The kind of place a leaf sits in, from its path. */
function kindOf(path: string): Found['kind'] {
  if (/(?:^|\.)_meta(?:$|\.)/.test(path)) return 'meta';
  if (path.includes('#json')) return 'json';
  if (path.startsWith('structuredContent')) return 'structured';
  if (/\.uri$/.test(path)) return 'link';
  return 'prose';
}

/** The last named step of a path (`booking.code` → `code`), not an index or a text field. */
function keyOf(path: string, kind: Found['kind']): string | undefined {
  const steps = path
    .replace(/#json/g, '')
    .split('.')
    .filter((s) => s.length > 0 && !/^\d+$/.test(s));
  const last = steps[steps.length - 1];
  if (last === undefined || (kind === 'prose' && last === 'text')) return undefined;
  return last;
}

const isInteger = (v: string): boolean => /^[1-9]\d{0,15}$/.test(v) && Number.isSafeInteger(+v);

function found(position: Varying, round: number, varying: boolean): Found {
  const kind = kindOf(position.path);
  const key = keyOf(position.path, kind);
  const where = `r${round}:${position.path}${position.index === undefined ? '' : `#${position.index}`}`;
  return {
    value: position.value,
    where,
    kind,
    round,
    position,
    ...(key === undefined ? {} : { key }),
    ...(isInteger(position.value) ? { numeric: true as const } : {}),
    ...(varying ? { varying: true as const } : {}),
  };
}

const usable = (v: Varying): boolean =>
  v.value.length > 0 && v.value.length <= MAX_VALUE && !PROTOCOL_PATHS.test(v.path);

/**
 * What two identical minting calls minted: every value of the first call's answers (round by
 * round) at a position where the second call's answers disagree.
 */
export function mintedByDifference(first: readonly unknown[], second: readonly unknown[]): Found[] {
  const all: Found[] = [];
  first.forEach((answer, round) => {
    if (round >= second.length) return;
    for (const v of varyingValues(leavesOf(answer), leavesOf(second[round])))
      if (usable(v)) all.push(found(v, round, true));
  });
  return distinct(all);
}

/**
 * One place per value, the most telling: a value a server states both in a sentence and in a field
 * (`Filed ticket #17.` and `ticket.id: 17`) is kept where it has a key.
 */
function distinct(all: readonly Found[]): Found[] {
  const keyed = (f: Found): number => Number(f.kind !== 'prose' || f.key !== undefined);
  const sorted = [...all].sort((a, b) => keyed(b) - keyed(a));
  const seen = new Set<string>();
  const out: Found[] = [];
  for (const f of sorted) {
    if (out.length >= MAX_FOUND) break;
    if (seen.has(f.value)) continue;
    seen.add(f.value);
    out.push(f);
  }
  return out;
}

/** Every string and number a request holds, and their tokens: what it carried. */
function carriedBy(sent: readonly unknown[]): Set<string> {
  const out = new Set<string>();
  for (const leaf of sent.flatMap((s) => leavesOf(s))) {
    out.add(leaf.value);
    for (const t of leaf.tokens) out.add(t);
  }
  return out;
}

/**
 * The fallback for a deterministic mint: the values `answers` hold that `sent` did not carry
 * (whole leaves that are one token, then each token of longer leaves), at most {@link MAX_HELD}.
 */
export function heldValues(answers: readonly unknown[], sent: readonly unknown[]): Found[] {
  const carried = carriedBy(sent);
  const whole: Found[] = [];
  const tokens: Found[] = [];
  const take = (v: Varying, round: number, into: Found[]): void => {
    if (usable(v) && !carried.has(v.value)) into.push(found(v, round, false));
  };
  answers.forEach((answer, round) => {
    for (const leaf of leavesOf(answer)) {
      if (leaf.tokens.length <= 1) take({ path: leaf.path, value: leaf.value }, round, whole);
      else
        leaf.tokens.forEach((t, index) =>
          take({ path: leaf.path, value: t, index }, round, tokens),
        );
    }
  });
  return distinct([...whole, ...tokens]).slice(0, MAX_HELD);
}

/** What a minting call minted: by difference, else what its answer held that it did not send. */
export function harvestMint(
  first: readonly unknown[],
  second: readonly unknown[],
  sent: readonly unknown[],
): Found[] {
  const varying = mintedByDifference(first, second);
  return varying.length > 0 ? varying : heldValues(first, sent);
}

/**
 * The value a fresh answer of the same minting call holds where `like` was found: the same round,
 * the same position. A deterministic mint's value is looked for at its place, else as it was.
 */
export function findLike(answers: readonly unknown[], like: Found): string | undefined {
  const answer = answers[like.round];
  if (answer === undefined) return undefined;
  const value = valueAt(leavesOf(answer), like.position);
  if (value !== undefined && value.length > 0) return value;
  return undefined;
}
