/**
 * What a tool's description says of its own tool: the verbs where a clause puts its verb (after
 * its subject; last in Hindi), never a negated or supposed act, never a noun after a determiner,
 * and the phrases that say an effect cannot be undone (`classify.ts` decides).
 */
import { IRREVERSIBLE, NEGATIONS } from './risk-lexicon.js';
import { fold, clausesOf, isUnspaced } from './words.js';
import { stripIdentifiers } from './slots.js';
import { ASKING_OBJECTS, DETERMINERS, NAME_ONLY, VERB_OPENERS } from './lexicon.js';
import { mixesScripts } from './match.js';
import {
  CONJUNCTION_SET,
  JOINED_AND,
  emptyReading,
  isHarm,
  note,
  unspacedVerbs,
  verbAt,
  wordClass,
  type Reading,
} from './verbs.js';

const NEGATION_SET = new Set(NEGATIONS.map(fold));
// Words before a clause's verb that are its subject (`this tool deletes`, `it will send`).
const SUBJECTS = new Set(
  (
    'this it tool will which that also can may you we dieses dieser diese es wird cette cet il ' +
    'elle esta este ele ela questo questa deze dit het ten ta to bu этот эта это'
  ).split(' '),
);
// Words that open a question or a condition (`until it is published`): what follows is not the tool's act.
const HYPOTHETICAL = new Set('whether if unless until ob si se'.split(' '));
// A clause that opens with one of these points at another tool (`Use delete_x to …`).
const POINTERS = new Set('see like unlike instead via prefer'.split(' '));

const negatedAround = (words: readonly string[], i: number): boolean =>
  words.slice(Math.max(0, i - 3), i).some((w) => NEGATION_SET.has(w)) ||
  words.slice(i + 1, i + 3).some((w) => NEGATION_SET.has(w));

// The forms of Hindi's `करना` (do) that follow the noun of a compound verb.
const LIGHT_VERBS = new Set(['करता', 'करती', 'करते', 'करें', 'करो', 'करना', 'कर', 'किया', 'करेगा']);
// Auxiliaries that close a Hindi clause after its verb (`दिखाता है`).
const CLOSING_AUXILIARIES = new Set(['है', 'हैं', 'था', 'थे', 'थी', 'जाता', 'जाती', 'सकता', 'सकती']);

/** The places of a clause where a verb stands. */
export function verbPlaces(clause: readonly string[]): number[] {
  const places: number[] = [];
  // Hindi puts the verb last, before its auxiliaries (`उत्पाद खोजता है`), and before a
  // conjunction that joins two acts (`सूची दिखाता और हटाता है`).
  if (clause.some((w) => /\p{Script=Devanagari}/u.test(w))) {
    let last = clause.length - 1;
    while (last > 0 && CLOSING_AUXILIARIES.has(clause[last] as string)) last--;
    // A noun and `करना` (do) make one verb (`भुगतान करता है`, pays; `रद्द करता है`, cancels): the
    // noun says the act.
    if (last > 0 && LIGHT_VERBS.has(clause[last] as string)) last--;
    for (let j = 1; j < last; j++) if (CONJUNCTION_SET.has(clause[j] as string)) places.push(j - 1);
    return [last, ...places];
  }
  let i = 0;
  while (i < clause.length - 1 && SUBJECTS.has(clause[i] as string)) i++;
  if (DETERMINERS.has(clause[i] as string)) {
    // `The server sends …`: the verb follows a short subject.
    for (let j = i + 1; j < Math.min(clause.length, i + 4); j++)
      if (
        wordClass(clause[j] as string, false) !== undefined &&
        !DETERMINERS.has(clause[j - 1] as string)
      ) {
        places.push(j);
        break;
      }
  } else places.push(i);
  for (let j = 1; j < clause.length; j++) {
    const before = clause[j - 1] as string;
    if (CONJUNCTION_SET.has(before) || VERB_OPENERS.has(before)) places.push(j);
    if (JOINED_AND.test(clause[j] as string) && (clause[j] as string).length > 3) places.push(j);
    // `will permanently delete`: one adverb between.
    if (j >= 2 && VERB_OPENERS.has(clause[j - 2] as string) && /ly$/.test(before)) places.push(j);
  }
  return [...new Set(places)].filter(
    (j) => j < clause.length && !DETERMINERS.has(clause[j - 1] ?? ''),
  );
}

const COPULAS = new Set('be is are was were been being remains remain stays stay'.split(' '));
const ADJECTIVE_VERBS = new Set('empty clear clean free blank open idle dry'.split(' '));

/** What a description says of its own tool. */
export function readDescription(description: string): Reading {
  const reading = emptyReading();
  const folded = fold(description);
  const irreversible = IRREVERSIBLE.find((r) => r.test(folded));
  if (irreversible !== undefined)
    note(reading, 'destroy', `"${irreversible.exec(folded)?.[0] ?? 'permanently'}"`, false);
  for (const [n, clause] of clausesOf(stripIdentifiers(description)).entries()) {
    // A clause that points at another tool, or asks (`Whether a record was deleted`), acts on nothing.
    if (POINTERS.has(clause[0] as string) || HYPOTHETICAL.has(clause[0] as string)) continue;
    for (const [k, w] of clause.entries()) {
      if (!isUnspaced(w)) continue;
      const verbs = unspacedVerbs(w, true).filter((v) => !v.negated);
      for (const v of verbs)
        note(reading, v.kind, `"${v.word}"`, n === 0 && k === 0 && v === verbs[verbs.length - 1]);
    }
    const places = verbPlaces(clause);
    for (const [p, j] of places.entries()) {
      const v = verbAt(clause, j, false);
      if (v === undefined || negatedAround(clause, j) || NAME_ONLY.has(clause[j] as string))
        continue;
      // `… if it were cancelled today`: what would happen is not what the tool does.
      if (clause.slice(Math.max(0, j - 4), j).some((w) => HYPOTHETICAL.has(w))) continue;
      // `(which may be empty)`: after a copula a verb's bare form is its adjective (the passive
      // says `emptied`, `cleared`).
      if (COPULAS.has(clause[j - 1] ?? '') && ADJECTIVE_VERBS.has(clause[j] as string)) continue;
      // `sends an elicitation request`: it asks the user, and reaches nobody else.
      const object = clause.slice(j + 1, j + 4).find((w) => !DETERMINERS.has(w));
      if (isHarm(v.kind) && object !== undefined && ASKING_OBJECTS.has(object)) continue;
      note(reading, v.kind, `"${v.word}"`, n === 0 && p === 0);
    }
    for (const w of clause)
      if (mixesScripts(w))
        note(reading, wordClass(w, false)?.kind ?? 'unknown', `"${w}" (mixed alphabets)`, false);
  }
  return reading;
}
