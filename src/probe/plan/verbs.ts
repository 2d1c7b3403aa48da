/**
 * The verbs a word holds where a verb stands, for the call plan's readers of a name (`name.ts`) and
 * of a description (`description.ts`): a word's class from the lists (`lexicon.ts`,
 * `risk-lexicon.ts`), a verb inside an unspaced word (Han, kana, Hangul), a phrasal or
 * two-word verb read whole, and what one text said (its worst harm, an unknown word, its lead
 * verb).
 */
import {
  CONJUNCTIONS,
  DESTROY,
  EXECUTE,
  LEAD_ONLY,
  MODIFY,
  NEGATION_AFTER_CJK,
  NEGATION_BEFORE_CJK,
} from './risk-lexicon.js';
import { fold } from './words.js';
import type { CallClass } from '../model/tools.js';
import {
  READ_TAILS,
  CREATE_VERBS,
  OUTSIDE_VERBS,
  PARTICLES,
  PHRASAL_HEADS,
  READ_VERBS,
} from './lexicon.js';
import {
  compile,
  lookalikeScript,
  once,
  matches,
  matchesSkeleton,
  mixesScripts,
  phraseAt,
  phraseIn,
  startsGlued,
  unspacedAt,
  type Compiled,
} from './match.js';

/** The classes that act, and their order of worse (the worst harm decides). */
export type Harm = 'write' | 'outside' | 'destroy';
export const SEVERITY: Readonly<Record<Harm, number>> = { write: 1, outside: 2, destroy: 3 };

/** Every list a word is read against, the worst class first: a word takes the first it matches. */
export const lists = once((): readonly { readonly kind: CallClass; readonly c: Compiled }[] => [
  { kind: 'destroy', c: compile(DESTROY) },
  { kind: 'outside', c: compile(OUTSIDE_VERBS, EXECUTE) },
  { kind: 'write', c: compile(MODIFY) },
  { kind: 'read', c: compile(READ_VERBS) },
  { kind: 'create', c: compile(CREATE_VERBS) },
]);
/** Nouns that are verbs only where a verb leads (`post`, `message`); the readers' lists. */
export const leadList = once(() => compile(LEAD_ONLY));
const harmAll = once(() => compile(DESTROY, OUTSIDE_VERBS, EXECUTE, MODIFY, LEAD_ONLY));
const safeAll = once(() => compile(READ_VERBS, CREATE_VERBS));
export const readTailList = once(() => compile(READ_VERBS, READ_TAILS));
export const READ_TAIL_WORDS = READ_TAILS.map(fold);
export const CONJUNCTION_SET = new Set(CONJUNCTIONS.map(fold));
// Verb endings after an unspaced verb: `削除します`, `삭제합니다`; and what may close a clause.
const CJK_VERB_TAIL =
  /^(します|する|した|して|しない|しません|せず|できます|できる|ます|を|하|합|해|한|했|할|되|된|않|$)/u;

// Letters Hebrew and Arabic join to the next word: `and`, `the`, `to`, `that`.
const CLITIC = /^(?:وال|ال|[והלשو])/u;
// Of those, the ones that join two acts (`ומוחק`, `ويحذفها`): the word after one is a verb's place.
export const JOINED_AND = /^[וو]/u;

/** The class of one word where a verb stands, and the word it matched. */
export function wordClass(
  w: string,
  glued: boolean,
): { kind: CallClass; word: string } | undefined {
  const mixed = mixesScripts(w);
  if (!mixed) {
    for (const { kind, c } of lists())
      if (matches(c, w, glued && kind !== 'read' && kind !== 'create')) return { kind, word: w };
    if (glued && startsGlued(lists()[3]!.c, w)) return { kind: 'read', word: w };
    // Hebrew and Arabic join `and`, `the`, `to` to the next word (`ומחק`, `وحذف`): a harmful verb
    // behind one still counts.
    const clitic = CLITIC.exec(w);
    if (clitic !== null && w.length - clitic[0].length >= 2) {
      const rest = wordClass(w.slice(clitic[0].length), false);
      if (rest !== undefined && isHarm(rest.kind)) return { kind: rest.kind, word: w };
    }
  }
  // A word in two alphabets, or one spelt in look-alike letters of another alphabet: a look-alike
  // of a harmful verb is that verb (`dеlete`); anything else mixed, or a look-alike of a safe verb,
  // is unknown (it is not the word it pretends to be).
  if (mixed || lookalikeScript(w)) {
    if (matchesSkeleton(harmAll(), w)) return { kind: 'destroy', word: w };
    if (mixed || matchesSkeleton(safeAll(), w)) return { kind: 'unknown', word: w };
  }
  return undefined;
}

/** The verbs of an unspaced word (Han, kana, Hangul), each where it stands as a verb. */
export function unspacedVerbs(
  w: string,
  inSentence: boolean,
): { kind: CallClass; word: string; negated: boolean }[] {
  const kana = /[\p{Script=Hiragana}\p{Script=Katakana}]/u.test(w);
  const hangul = /\p{Script=Hangul}/u.test(w);
  const found: { at: number; kind: CallClass; word: string; tail: string }[] = [];
  for (const { kind, c } of lists())
    for (const { at, entry } of unspacedAt(c, w))
      found.push({ at, kind, word: entry, tail: w.slice(at + entry.length) });
  const out = found.filter(({ at, tail }) => {
    // Kana and Hangul put the verb last, before its ending (`手段を検索します`): an entry followed
    // by more noun (`移動手段`) is a noun; in a Korean sentence words are spaced, so a verb there
    // has its ending (`조회합니다`), and a bare noun (`송금 내역`) is none.
    if (hangul && inSentence) return tail.length > 0 && CJK_VERB_TAIL.test(tail);
    if (kana || hangul) return CJK_VERB_TAIL.test(tail);
    // Han alone puts the verb first (`删除文件`, `获取设置`); at the end only when none leads.
    return at === 0 || (tail.length === 0 && !found.some((f) => f.at === 0));
  });
  return out
    .map(({ at, kind, word, tail }) => ({
      at,
      kind,
      word,
      negated:
        NEGATION_BEFORE_CJK.some((n) => w.slice(0, at).includes(n)) ||
        NEGATION_AFTER_CJK.some((n) => tail.slice(0, 6).includes(n)),
    }))
    .sort((a, b) => a.at - b.at);
}

/** The verb at `i` of `words`, reading a phrasal verb whole (`check out` is not `check`). */
export function verbAt(
  words: readonly string[],
  i: number,
  glued: boolean,
): { kind: CallClass; word: string } | undefined {
  const w = words[i] as string;
  // A verb of two words (`tìm kiếm`, `kérd le`, `ta bort`) reads whole where it stands.
  for (const { kind, c } of lists()) {
    const phrase = phraseAt(c, words, i);
    if (phrase !== undefined) return { kind, word: phrase };
  }
  const next = words[i + 1];
  if (next !== undefined && PARTICLES.has(next)) {
    const phrase = `${w}${next}`;
    for (const { kind, c } of lists())
      if (matches(c, phrase) || phraseIn(c, [w, next]) !== undefined)
        return { kind, word: `${w} ${next}` };
    // `check out` is not `check`: a phrasal verb the lists do not know says nothing.
    if (PHRASAL_HEADS.has(w)) return undefined;
  }
  return wordClass(w, glued);
}

/** True for a class that acts. */
export const isHarm = (k: CallClass): k is Harm =>
  k === 'write' || k === 'outside' || k === 'destroy';

/** What one text said: harm found, unknown words, and the lead verb's class. */
export interface Reading {
  harm?: { kind: Harm; word: string };
  unknown?: string;
  lead?: { kind: 'read' | 'create'; word: string };
}
export const emptyReading = (): Reading => ({});

/** Records one word's class in what a text said: the worst harm, the first unknown, the lead verb. */
export function note(r: Reading, kind: CallClass, word: string, lead: boolean): void {
  if (isHarm(kind)) {
    if (r.harm === undefined || SEVERITY[kind] > SEVERITY[r.harm.kind]) r.harm = { kind, word };
  } else if (kind === 'unknown') r.unknown ??= word;
  else if (lead && r.lead === undefined) r.lead = { kind, word };
}
