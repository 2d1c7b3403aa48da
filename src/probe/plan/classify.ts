/**
 * One class for a tool, from everything it declares, read in the safe direction
 * (docs/scanner.md, "What a scan calls"):
 *
 * 1. **Signs of harm** win over everything: `destructiveHint: true`; `openWorldHint: true` on a tool
 *    that is not read-only; a verb that writes, reaches outside or destroys where the name or the
 *    description puts its verb; a slot that takes a command, code or a database query; a URL or a
 *    file path the tool may open (unless it declares itself read-only in a closed world); a
 *    description that says the effect cannot be undone.
 * 2. A word that mixes alphabets (`dеlete` with a Cyrillic `е`), or is a look-alike spelling of a
 *    known verb, is **unknown**, and blocks every claim of safety.
 * 3. **Evidence of safety** comes only from words: the name's verb and the description's main
 *    verb. An annotation adds to a word that agrees with it (`readOnlyHint: true` beside `get_…`);
 *    on a tool named only by what it returns it counts when its description explains the name
 *    and opens with no verb (`agreement.ts`); alone it is a claim. Among the safe classes the less
 *    safe one holds (a `create_…` tool that declares read-only creates; `readOnlyHint: false`
 *    rules out a reader).
 * 4. With no evidence of either, the tool is **unknown**: the unknown is not called.
 *
 * Words are read as words: only where a verb stands (a name's first and last word and the word
 * after a conjunction; a clause's first word after its subject, and the word after `is`, `will`,
 * `to`, `and`), never a noun after a determiner (`its charges`), never a value a schema offers
 * (`enum`, `const`, `default`, `examples`).
 */
import {
  CONJUNCTIONS,
  DESTROY,
  EXECUTE,
  IRREVERSIBLE,
  LEAD_ONLY,
  MODIFY,
  NEGATIONS,
  NEGATION_AFTER_CJK,
  NEGATION_BEFORE_CJK,
} from '../surface/risk-lexicon.js';
import { fold, clausesOf, wordsOf } from '../surface/words.js';
import { dangerousSlots, paramsOf, roleOfDescription, stripIdentifiers } from '../surface/slots.js';
import type { CallClass, ToolInfo } from '../types.js';
import { readOnlyAgreed } from './agreement.js';
import {
  READ_HEADS,
  READ_TAILS,
  ASKING_OBJECTS,
  CREATE_VERBS,
  DETERMINERS,
  NAME_ONLY,
  NOUN_VERBS,
  OUTSIDE_VERBS,
  PARTICLES,
  PHRASAL_HEADS,
  QUESTION_WORDS,
  READ_VERBS,
  SHARED_OBJECTS,
  EXISTING,
  NEW_OBJECT,
  STORING_VERBS,
  VERB_LAST,
  VERB_OPENERS,
} from './lexicon.js';
import {
  compile,
  isUnspaced,
  lookalikeScript,
  matches,
  matchesSkeleton,
  mixesScripts,
  phraseAt,
  phraseIn,
  startsGlued,
  unspacedAt,
  type Compiled,
} from './match.js';

/** A class and the evidence for it, the deciding phrase first. */
export interface Classified {
  readonly class: CallClass;
  readonly evidence: string[];
}

type Harm = 'write' | 'outside' | 'destroy';
const SEVERITY: Readonly<Record<Harm, number>> = { write: 1, outside: 2, destroy: 3 };

const LISTS: readonly { readonly kind: CallClass; readonly c: Compiled }[] = [
  { kind: 'destroy', c: compile(DESTROY) },
  { kind: 'outside', c: compile(OUTSIDE_VERBS, EXECUTE) },
  { kind: 'write', c: compile(MODIFY) },
  { kind: 'read', c: compile(READ_VERBS) },
  { kind: 'create', c: compile(CREATE_VERBS) },
];
const LEAD_C = compile(LEAD_ONLY);
const HARM_ALL = compile(DESTROY, OUTSIDE_VERBS, EXECUTE, MODIFY, LEAD_ONLY);
const SAFE_ALL = compile(READ_VERBS, CREATE_VERBS);
const READ_TAIL_C = compile(READ_VERBS, READ_TAILS);
const READ_TAIL_WORDS = READ_TAILS.map(fold);
const NEGATION_SET = new Set(NEGATIONS.map(fold));
const CONJUNCTION_SET = new Set(CONJUNCTIONS.map(fold));
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
// Verb endings after an unspaced verb: `削除します`, `삭제합니다`; and what may close a clause.
const CJK_VERB_TAIL =
  /^(します|する|した|して|しない|しません|せず|できます|できる|ます|を|하|합|해|한|했|할|되|된|않|$)/u;

// Letters Hebrew and Arabic join to the next word: `and`, `the`, `to`, `that`.
const CLITIC = /^(?:وال|ال|[והלשو])/u;
// Of those, the ones that join two acts (`ומוחק`, `ويحذفها`): the word after one is a verb's place.
const JOINED_AND = /^[וو]/u;

/** The class of one word where a verb stands, and the word it matched. */
function wordClass(w: string, glued: boolean): { kind: CallClass; word: string } | undefined {
  const mixed = mixesScripts(w);
  if (!mixed) {
    for (const { kind, c } of LISTS)
      if (matches(c, w, glued && kind !== 'read' && kind !== 'create')) return { kind, word: w };
    if (glued && startsGlued(LISTS[3]!.c, w)) return { kind: 'read', word: w };
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
    if (matchesSkeleton(HARM_ALL, w)) return { kind: 'destroy', word: w };
    if (mixed || matchesSkeleton(SAFE_ALL, w)) return { kind: 'unknown', word: w };
  }
  return undefined;
}

/** The verbs of an unspaced word (Han, kana, Hangul), each where it stands as a verb. */
function unspacedVerbs(
  w: string,
  inSentence: boolean,
): { kind: CallClass; word: string; negated: boolean }[] {
  const kana = /[\p{Script=Hiragana}\p{Script=Katakana}]/u.test(w);
  const hangul = /\p{Script=Hangul}/u.test(w);
  const found: { at: number; kind: CallClass; word: string; tail: string }[] = [];
  for (const { kind, c } of LISTS)
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

/** Splits a name's words at conjunctions: `get_and_delete` is `get`, then `delete`. */
function segments(words: readonly string[]): string[][] {
  const out: string[][] = [[]];
  for (const w of words) {
    if (CONJUNCTION_SET.has(w)) out.push([]);
    else out[out.length - 1]!.push(w);
  }
  return out.filter((s) => s.length > 0);
}

/** The verb at `i` of `words`, reading a phrasal verb whole (`check out` is not `check`). */
function verbAt(
  words: readonly string[],
  i: number,
  glued: boolean,
): { kind: CallClass; word: string } | undefined {
  const w = words[i] as string;
  // A verb of two words (`tìm kiếm`, `kérd le`, `ta bort`) reads whole where it stands.
  for (const { kind, c } of LISTS) {
    const phrase = phraseAt(c, words, i);
    if (phrase !== undefined) return { kind, word: phrase };
  }
  const next = words[i + 1];
  if (next !== undefined && PARTICLES.has(next)) {
    const phrase = `${w}${next}`;
    for (const { kind, c } of LISTS)
      if (matches(c, phrase) || phraseIn(c, [w, next]) !== undefined)
        return { kind, word: `${w} ${next}` };
    // `check out` is not `check`: a phrasal verb the lists do not know says nothing.
    if (PHRASAL_HEADS.has(w)) return undefined;
  }
  return wordClass(w, glued);
}

/** What a name (or a title) says: the verbs where a name puts them. */
function readName(name: string): Reading {
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
  const phrase = LISTS.map(({ kind, c }) => ({ kind, p: phraseIn(c, words) })).find(
    (x) => x.p !== undefined,
  );
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
    matches(READ_TAIL_C, tail)
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
    (matches(READ_TAIL_C, lastWord) ? { kind: 'read' as const, word: lastWord } : undefined);
  // At the end a noun is likelier than a verb that reaches out (`borrow_book`, `room_comments`);
  // a verb that deletes or changes still counts there (`files_delete`).
  const noun = /[^s]s$/.test(lastWord) || matches(LEAD_C, lastWord) || last?.kind === 'outside';
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
    if (k !== undefined && (isHarm(k.kind) || k.kind === 'unknown') && !matches(LEAD_C, w))
      note(reading, k.kind, `"${k.word}"`, false);
  }
}

const DRAFTING = new Set(
  'draft drafts prepare prepares compose composes plan plans sketch'.split(' '),
);

const isHarm = (k: CallClass): k is Harm => k === 'write' || k === 'outside' || k === 'destroy';

/** What one text said: harm found, unknown words, and the lead verb's class. */
interface Reading {
  harm?: { kind: Harm; word: string };
  unknown?: string;
  lead?: { kind: 'read' | 'create'; word: string };
}
const emptyReading = (): Reading => ({});

function note(r: Reading, kind: CallClass, word: string, lead: boolean): void {
  if (isHarm(kind)) {
    if (r.harm === undefined || SEVERITY[kind] > SEVERITY[r.harm.kind]) r.harm = { kind, word };
  } else if (kind === 'unknown') r.unknown ??= word;
  else if (lead && r.lead === undefined) r.lead = { kind, word };
}

const negatedAround = (words: readonly string[], i: number): boolean =>
  words.slice(Math.max(0, i - 3), i).some((w) => NEGATION_SET.has(w)) ||
  words.slice(i + 1, i + 3).some((w) => NEGATION_SET.has(w));

// Auxiliaries that close a Hindi clause after its verb (`दिखाता है`).
const CLOSING_AUXILIARIES = new Set(['है', 'हैं', 'था', 'थे', 'थी', 'जाता', 'जाती', 'सकता', 'सकती']);

/** The places of a clause where a verb stands. */
function verbPlaces(clause: readonly string[]): number[] {
  const places: number[] = [];
  // Hindi puts the verb last, before its auxiliaries (`उत्पाद खोजता है`), and before a
  // conjunction that joins two acts (`सूची दिखाता और हटाता है`).
  if (clause.some((w) => /\p{Script=Devanagari}/u.test(w))) {
    let last = clause.length - 1;
    while (last > 0 && CLOSING_AUXILIARIES.has(clause[last] as string)) last--;
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
function readDescription(description: string): Reading {
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

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const ROLE_TEXT = {
  command: 'a command',
  code: 'code',
  query: 'a database query',
  url: 'a URL',
  path: 'a file path',
} as const;

// Verbs that put what a tool has into a file or at a URL: beside an optional path or URL slot they
// say the tool writes or sends, set or not.
const SLOT_ACT = new RegExp(
  String.raw`\b(sav(e|es|ed|ing)|writ(e|es|ing|ten)|stor(e|es|ed|ing)|persist(s|ed)?|export(s|ed|ing)?|dump(s|ed)?|download(s|ed)?|post(s|ed|ing)?|upload(s|ed|ing)?|send(s|ing)?|sent|push(es|ed)?|forward(s|ed)?|deliver(s|ed)?|publish(es|ed)?|submit(s|ted)?|speicher\w*|schreib\w*|sende\w*|hochlad\w*|enregistr\w*|sauvegard\w*|ecri\w*|envo\w*|guard(a|ar|an)|escrib\w*|envi(a|ar|an)|salv(a|ar|an)|grav(a|ar)|subir|sube)\b`,
  'u',
);

/** The verb of a description that writes or sends what the tool has, if any. */
function slotAct(description: string): string | undefined {
  const found = SLOT_ACT.exec(fold(stripIdentifiers(description)));
  return found === null ? undefined : `"${found[0]}"`;
}

const ROLE_NOUN = {
  command: 'command',
  code: 'code',
  query: 'database query',
  url: 'URL',
  path: 'path',
} as const;

// Parameters that name a source repository (`repo`, `repository_name`, GitLab's `project_id`); a
// bare `project` may be a folder of the host, so it is not one.
const REPOSITORY = new Set(
  'repo repos repository repositories reponame repositoryname repoid repositoryid projectid'.split(
    ' ',
  ),
);

type Harms = { kind: Harm; why: string }[];
type Safe = { kind: 'read' | 'create'; why: string }[];

/** What a tool's declaration says, gathered before any decision. */
interface Declared {
  readonly tool: ToolInfo;
  readonly ann: Record<string, unknown> | undefined;
  readonly title: string;
  readonly description: string;
  readonly readOnly: boolean;
}

/** Classifies a tool (see the module's comment). */
export function classifyTool(tool: ToolInfo): Classified {
  const ann = isRecord(tool.annotations) ? tool.annotations : undefined;
  const d: Declared = {
    tool,
    ann,
    title: typeof ann?.['title'] === 'string' ? ann['title'] : (tool.title ?? ''),
    description: typeof tool.description === 'string' ? tool.description : '',
    readOnly: ann?.['readOnlyHint'] === true,
  };
  const harms: Harms = annotationHarms(d);
  const { unknowns, safe } = readWords(d, harms);
  const unset = slotHarms(d, safe, harms);
  storesNew(d, harms, safe);
  const judged = decide(d, harms, unknowns, safe);
  return { class: judged.class, evidence: [...judged.evidence, ...unset] };
}

const STORING_C = compile(STORING_VERBS);

/**
 * A name led by a verb that keeps what it is given (`save_snippet`), whose description gives that
 * verb a new object (`Save a text snippet.`) and says nothing of an existing one, creates: its
 * verb's reading as a change is dropped, and a required path, URL or command slot still counts.
 */
function storesNew({ tool, description }: Declared, harms: Harms, safe: Safe): void {
  const lead = wordsOf(tool.name)[0];
  const main = clausesOf(stripIdentifiers(description))[0];
  if (lead === undefined || main === undefined || !matches(STORING_C, lead)) return;
  const at = verbPlaces(main)[0];
  if (at === undefined || !matches(STORING_C, main[at] as string)) return;
  if (!NEW_OBJECT.has(main[at + 1] ?? '')) return;
  if (clausesOf(description).some((c) => c.some((w) => EXISTING.has(w)))) return;
  const stored = (h: Harms[number]): boolean =>
    h.kind === 'write' && matches(STORING_C, /"([^"]+)"/.exec(h.why)?.[1] ?? '');
  for (let i = harms.length - 1; i >= 0; i--) if (stored(harms[i]!)) harms.splice(i, 1);
  safe.push({
    kind: 'create',
    why: `its description says "${main[at] as string}" and gives it a new object`,
  });
}

/** Harm an annotation declares: it counts alone (a hint of harm is believed, one of safety is not). */
function annotationHarms({ ann, readOnly }: Declared): Harms {
  const harms: Harms = [];
  if (ann?.['destructiveHint'] === true)
    harms.push({ kind: 'destroy', why: 'declares destructiveHint: true' });
  if (!readOnly && ann?.['openWorldHint'] === true)
    harms.push({ kind: 'outside', why: 'declares openWorldHint: true and is not read-only' });
  return harms;
}

/** The words of the name, the title and the description: harm into `harms`, the rest returned. */
function readWords(d: Declared, harms: Harms): { unknowns: string[]; safe: Safe } {
  const unknowns: string[] = [];
  const safe: Safe = [];
  for (const [where, reading] of [
    ['name', readName(d.tool.name)],
    ['title', d.title ? readName(d.title) : emptyReading()],
    ['description', d.description ? readDescription(d.description) : emptyReading()],
  ] as const) {
    if (reading.harm !== undefined)
      harms.push({ kind: reading.harm.kind, why: `its ${where} says ${reading.harm.word}` });
    if (reading.unknown !== undefined)
      unknowns.push(`its ${where} has ${reading.unknown}, a word it cannot read`);
    if (reading.lead !== undefined)
      safe.push({ kind: reading.lead.kind, why: `its ${where} says ${reading.lead.word}` });
  }
  return { unknowns, safe };
}

/**
 * Slots: what a parameter takes (only a parameter that can hold text can hold a command or a URL).
 * A required dangerous slot is a sign of harm; an optional one the scanner never fills (the call
 * gate strips it before a request is sent), so it is no sign: it is returned as evidence, and the
 * tool is judged on the rest.
 */
function slotHarms(
  { tool, ann, description, readOnly }: Declared,
  safe: Safe,
  harms: Harms,
): string[] {
  const describedRole = description ? roleOfDescription(stripIdentifiers(description)) : undefined;
  if (describedRole !== undefined && describedRole !== 'url' && describedRole !== 'path')
    harms.push({
      kind: 'outside',
      why: `its description says it runs ${ROLE_TEXT[describedRole]}`,
    });
  const harmless = readOnly && ann?.['openWorldHint'] === false;
  const params = paramsOf(tool.inputSchema);
  // A path beside a repository's coordinates (`owner`, `repo`, `path`) names a file in that
  // repository, not on the server's host: a tool that only reads opens nothing there.
  const inRepository =
    params.some(
      (p) => p.path.length === 1 && REPOSITORY.has(wordsOf(p.path[0] as string).join('')),
    ) &&
    safe.length > 0 &&
    safe.every((s) => s.kind === 'read') &&
    ann?.['readOnlyHint'] !== false;
  const unset: string[] = [];
  for (const { path, role, optional } of dangerousSlots(tool)) {
    // A read-only tool in a closed world only ever gets a placeholder that reaches nowhere.
    if ((role === 'url' || role === 'path') && harmless) continue;
    if (role === 'path' && inRepository) continue;
    if (optional) {
      // Words that say what the tool does with the slot's file or URL still win: it may do so
      // with a default of its own when the slot is unset (`saves it to the given file`).
      const act = (role === 'path' || role === 'url') && slotAct(description);
      if (act) {
        harms.push({
          kind: 'outside',
          why: `its description says ${act}, and it takes ${ROLE_TEXT[role]} in "${path.join('.')}"`,
        });
        break;
      }
      unset.push(`optional ${ROLE_NOUN[role]} \`${path.join('.')}\` left unset`);
      continue;
    }
    harms.push({ kind: 'outside', why: `it takes ${ROLE_TEXT[role]} in "${path.join('.')}"` });
    break;
  }
  return unset;
}

/** The class: the worst harm, else unknown, else the less safe of the safe evidence. */
function decide(d: Declared, harms: Harms, unknowns: string[], safe: Safe): Classified {
  const { ann, readOnly } = d;
  if (harms.length > 0) {
    const worst = harms.reduce((a, b) => (SEVERITY[b.kind] > SEVERITY[a.kind] ? b : a));
    return {
      class: worst.kind,
      evidence: [worst.why, ...harms.filter((h) => h !== worst).map((h) => h.why)],
    };
  }
  if (unknowns.length > 0) return { class: 'unknown', evidence: unknowns };

  // An annotation counts only beside a word that agrees: a hint alone is a claim, not evidence
  // (a false `readOnlyHint: true` on a tool named in a language the lists do not know).
  if (safe.length > 0 && readOnly) safe.push({ kind: 'read', why: 'declares readOnlyHint: true' });
  // A tool named by what it returns has no verb to agree with its hint: its words may still do.
  const agreed =
    safe.length === 0 ? readOnlyAgreed({ ...d, name: d.tool.name }, verbPlaces) : undefined;
  if (agreed !== undefined) return { class: 'read', evidence: [agreed] };
  if (safe.length === 0) {
    // Say so when a hint claimed safety: the reader sees why it did not count.
    const claim = readOnly
      ? 'readOnlyHint: true'
      : ann?.['destructiveHint'] === false
        ? 'destructiveHint: false'
        : undefined;
    return {
      class: 'unknown',
      evidence: [
        claim === undefined
          ? 'no verb it knows in its name or description, and no annotation that says read-only or additive'
          : `no verb it knows in its name or description; it declares ${claim}, a claim no word of it agrees with`,
      ],
    };
  }
  // Among the safe classes the less safe holds: a `create_…` tool declaring read-only creates;
  // `readOnlyHint: false` rules out a reader.
  const creates = safe.filter((s) => s.kind === 'create');
  if (creates.length > 0 || ann?.['readOnlyHint'] === false) {
    const why =
      creates.length > 0
        ? creates.map((s) => s.why)
        : [...safe.map((s) => s.why), 'declares readOnlyHint: false'];
    return { class: 'create', evidence: why };
  }
  return { class: 'read', evidence: safe.map((s) => s.why) };
}

/**
 * Classifies a prompt or a resource template: a read by the protocol (`prompts/get`,
 * `resources/read`), unless its name or description says it destroys.
 */
export function classifyReadable(
  name: string,
  description: string | undefined,
  what: 'prompts/get' | 'resources/read',
): Classified {
  const readings = [readName(name), description ? readDescription(description) : emptyReading()];
  // A prompt's or a template's name is mostly its topic (`order_help`, `deploy_checklist`): only a
  // word that destroys holds one back.
  const harm = readings.find((r) => r.harm?.kind === 'destroy')?.harm;
  if (harm !== undefined) return { class: harm.kind, evidence: [`it says ${harm.word}`] };
  const unknown = readings.find((r) => r.unknown !== undefined)?.unknown;
  if (unknown !== undefined)
    return { class: 'unknown', evidence: [`it has ${unknown}, a word it cannot read`] };
  return { class: 'read', evidence: [`${what} reads, by the protocol`] };
}
