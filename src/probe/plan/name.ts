/**
 * What a tool's name (or its title) says: the verbs where a name puts them (its first word, its
 * last in the languages and styles that put the verb last, the word after a namespace or a
 * conjunction), the noun that says what it reports, and any harm inside it (`classify.ts` decides).
 */
import { isUnspaced, wordsOf } from './words.js';
import type { CallClass } from '../model/tools.js';
import { READ_HEADS, NOUN_VERBS, QUESTION_WORDS, SHARED_OBJECTS, VERB_LAST } from './lexicon.js';
import { matches, mixesScripts, phraseIn } from './match.js';
import {
  CONJUNCTION_SET,
  leadList,
  lists,
  readTailList,
  READ_TAIL_WORDS,
  emptyReading,
  isHarm,
  note,
  unspacedVerbs,
  verbAt,
  wordClass,
  type Reading,
} from './verbs.js';

/** Splits a name's words at conjunctions: `get_and_delete` is `get`, then `delete`. */
function segments(words: readonly string[]): string[][] {
  const out: string[][] = [[]];
  for (const w of words) {
    if (CONJUNCTION_SET.has(w)) out.push([]);
    else out[out.length - 1]!.push(w);
  }
  return out.filter((s) => s.length > 0);
}

/** What a name (or a title) says: the verbs where a name puts them. */
export function readName(name: string): Reading {
  const reading = emptyReading();
  const all = wordsOf(name);
  if (readGluedReport(reading, all)) return reading;
  for (const [s, words] of segments(all).entries())
    readSegment(reading, words, s === 0, all.length === 1);
  return reading;
}

/**
 * A glued name that ends in what it reports (`kontoinfo`) reads, unless it says harm; after a noun
 * a verb can be (`orderstatus`, as `order_status`) it reads whole: true then, and nothing else of
 * the name is read.
 */
function readGluedReport(reading: Reading, all: readonly string[]): boolean {
  const one = all[0];
  if (all.length !== 1 || one === undefined || isUnspaced(one) || one.length < 7) return false;
  const tail = READ_TAIL_WORDS.find(
    (t) => t.length >= 4 && one.endsWith(t) && one.length - t.length >= 3,
  );
  if (tail === undefined) return false;
  if (wordClass(one, true) === undefined) note(reading, 'read', `"${one}"`, true);
  if (!NOUN_VERBS.has(one.slice(0, one.length - tail.length))) return false;
  note(reading, 'read', `"${one}"`, true);
  return true;
}

/** One segment of a name, between conjunctions; `lead` for the first (its verb is the name's). */
function readSegment(reading: Reading, words: readonly string[], lead: boolean, glued: boolean) {
  const phrase = lists()
    .map(({ kind, c }) => ({ kind, p: phraseIn(c, words) }))
    .find((x) => x.p !== undefined);
  if (phrase?.p !== undefined) note(reading, phrase.kind, `"${phrase.p.phrase}"`, lead);
  const head = words[0] as string;
  if (isUnspaced(head) && words.length === 1) return readUnspacedName(reading, head, lead);
  // A name may ask (`is_deleted`), or lead with a namespace (`api_get_page`, `browser_click`).
  if (QUESTION_WORDS.has(head)) return note(reading, 'read', `"${head}"`, lead);
  const at =
    words.length > 2 &&
    verbAt(words, 0, glued) === undefined &&
    verbAt(words, 1, false) !== undefined
      ? 1
      : 0;
  const first = leadVerb(words, at, glued);
  // A noun a verb can be (`run_history`, `page_list`, `invoice_summary`, `sync_status`) before
  // what it reports, two words in all (`approve_expense_report` approves); never a verb that is
  // rarely a noun (`update_status` updates).
  const tail = words[words.length - 1] as string;
  if (
    first !== undefined &&
    isHarm(first.kind) &&
    NOUN_VERBS.has(words[at] as string) &&
    words.length === 2 &&
    matches(readTailList(), tail)
  )
    return note(reading, 'read', `"${tail}"`, lead);
  if (first !== undefined) note(reading, first.kind, `"${first.word}"`, lead);
  if (words.length > 1 && (first === undefined || first.kind === 'unknown' || isHarm(first.kind)))
    readLastWord(reading, tail, lead && first === undefined);
  if (first === undefined) readHeadless(reading, words, at, lead);
  for (const w of words)
    if (mixesScripts(w))
      note(reading, wordClass(w, false)?.kind ?? 'unknown', `"${w}" (mixed alphabets)`, false);
}

/** A name in an unspaced script: its verbs where the script puts them (last in kana and Hangul). */
function readUnspacedName(reading: Reading, word: string, lead: boolean): void {
  const verbs = unspacedVerbs(word, false).filter((v) => !v.negated);
  const first = /[\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u.test(word)
    ? verbs[verbs.length - 1]
    : verbs[0];
  for (const v of verbs) note(reading, v.kind, `"${v.word}"`, lead && v === first);
}

/**
 * The verb at `at` of a name; what a created thing is: an issue, a pull request, a comment reaches
 * people once it exists (a draft of one does not).
 */
function leadVerb(
  words: readonly string[],
  at: number,
  glued: boolean,
): { kind: CallClass; word: string } | undefined {
  const first = verbAt(words, at, glued && at === 0);
  if (first?.kind !== 'create' || DRAFTING.has(words[at] as string)) return first;
  const shared = words.slice(at + 1).find((w) => SHARED_OBJECTS.has(w));
  return shared === undefined ? first : { kind: 'outside', word: `${first.word} … ${shared}` };
}

/** Verb-last names (`konto_anzeigen`, `files_delete`); a plural at the end is a noun (`room_comments`). */
function readLastWord(reading: Reading, lastWord: string, lead: boolean): void {
  const last =
    wordClass(lastWord, false) ??
    (matches(readTailList(), lastWord) ? { kind: 'read' as const, word: lastWord } : undefined);
  // At the end a noun is likelier than a verb that reaches out (`borrow_book`, `room_comments`);
  // a verb that deletes or changes still counts there (`files_delete`).
  const noun = /[^s]s$/.test(lastWord) || matches(leadList(), lastWord) || last?.kind === 'outside';
  // A short last word is too often another language's noun (`kanal_tim`) to make a tool safe,
  // unless it is the verb of a language that puts its verb last (`urun_ara`).
  const tooShort =
    !isHarm(last?.kind ?? 'unknown') && lastWord.length < 4 && !VERB_LAST.has(lastWord);
  if (last !== undefined && !(noun && isHarm(last.kind)) && !tooShort)
    note(reading, last.kind, `"${last.word}"`, lead);
}

/** A name led by no verb it knows: a report noun at its head reads, a harm word anywhere counts. */
function readHeadless(reading: Reading, words: readonly string[], at: number, lead: boolean) {
  // A name led by what it reports, in a language that puts the head noun first (`detaliiComanda`).
  if (at === 0 && words.length <= 3 && READ_HEADS.has(words[0] as string))
    note(reading, 'read', `"${words[0] as string}"`, lead);
  // `bulk_delete_users`: a harm word inside the name counts.
  for (const w of words.slice(at + 1, -1)) {
    const k = wordClass(w, false);
    if (k !== undefined && (isHarm(k.kind) || k.kind === 'unknown') && !matches(leadList(), w))
      note(reading, k.kind, `"${k.word}"`, false);
  }
}

const DRAFTING = new Set(
  'draft drafts prepare prepares compose composes plan plans sketch'.split(' '),
);
