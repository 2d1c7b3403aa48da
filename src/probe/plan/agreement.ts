/**
 * When a tool's `readOnlyHint: true` counts with no reader verb beside it (docs/scanner.md, "What a
 * scan calls"): a tool named by what it returns (`room_comments`, "Comments left in a room, newest
 * first.") has no verb to agree with its hint, only words that explain it. The hint counts when
 * the tool declares a closed world and no destruction, nothing of it says harm (`classify.ts`
 * decides that first), its description's main clause is written in a language the lexicon reads
 * and opens with no verb, and the description or the title holds every word of the name. A name
 * the description does not explain (`idojaras` with no description), a main clause in a language
 * the lexicon does not read, or one that opens with a verb it does not know (`Bumps the
 * priority.`) leaves the hint a claim.
 */
import { clausesOf, wordsOf } from './words.js';
import { verbPlaces } from './description.js';
import { ARTICLES, FUNCTION_WORDS } from './lexicon.js';

/** What the agreement reads of a tool. */
export interface Hinted {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly ann: Record<string, unknown> | undefined;
}

/** The evidence when the hint counts, else undefined. */
export function readOnlyAgreed({ name, title, description, ann }: Hinted): string | undefined {
  if (ann?.['readOnlyHint'] !== true || ann['openWorldHint'] === true) return undefined;
  if (ann['destructiveHint'] === true) return undefined;
  const clauses = clausesOf(description);
  const main = clauses[0];
  // The main clause, which names what the tool returns, is written in a language the lexicon reads.
  if (main === undefined || !readableLanguage(main)) return undefined;
  // The main clause names a thing (`Comments left in a room`), it does not act on one: a word where
  // its verb stands followed by an article is a verb with its object (`Bumps the priority`).
  const place = verbPlaces(main)[0];
  if (place !== undefined && ARTICLES.has(main[place + 1] ?? '')) return undefined;
  if (!explains([...wordsOf(title), ...clauses.flat()], wordsOf(name))) return undefined;
  return 'declares readOnlyHint: true; its description names what it returns and no word of it acts';
}

/** True when at least two distinct function words of one language the lexicon reads appear. */
function readableLanguage(words: readonly string[]): boolean {
  const seen = new Set(words);
  return Object.values(FUNCTION_WORDS).some((list) => {
    const found = list.filter((w) => seen.has(w));
    // A one-letter word (`a`, `i`, `o`) is shared by too many languages to count twice.
    return found.length >= 2 && found.some((w) => w.length > 1);
  });
}

/** Whether `a` and `b` are one word, or one is the other with a short ending (`comment`, `comments`). */
function sameWord(a: string, b: string): boolean {
  if (a === b) return true;
  const [short, long] = a.length <= b.length ? [a, b] : [b, a];
  return short.length >= 3 && long.startsWith(short) && long.length - short.length <= 3;
}

/**
 * Whether every word of the name appears in `text` (a plural or an inflection allowed); a glued
 * name (`sequentialthinking`) is explained when it is made of words of `text` end to end.
 */
function explains(text: readonly string[], name: readonly string[]): boolean {
  const words = name.filter((w) => !/^\p{N}+$/u.test(w));
  if (words.length === 0) return false;
  return words.every((w) => text.some((t) => sameWord(t, w)) || composed(w, text));
}

/** Whether `w` is two or more words of `text` glued end to end. */
function composed(w: string, text: readonly string[]): boolean {
  const parts = [...new Set(text)].filter((t) => t.length >= 2);
  // ends[i]: `w.slice(0, i)` is made of words of `text`.
  const ends = new Array<boolean>(w.length + 1).fill(false);
  ends[0] = true;
  for (let i = 0; i < w.length; i++)
    if (ends[i]) for (const p of parts) if (w.startsWith(p, i)) ends[i + p.length] = true;
  return ends[w.length] === true;
}
