/**
 * Matching words against a word list: the one place that says how an entry of `risk-lexicon.ts` or
 * `lexicon.ts` matches a word (see the former's header), plus the confusable skeleton that tells a
 * word dressed in another script's letters (`dеlete` with a Cyrillic `е`) from a real one.
 */
import unhomoglyph from 'unhomoglyph';
import { fold, isUnspaced, wordsOf } from './words.js';

/** A word list, compiled. */
export interface Compiled {
  readonly exact: ReadonlySet<string>;
  readonly stems: readonly string[];
  readonly unspaced: readonly string[];
  /** Multi-word entries, as their words. */
  readonly phrases: readonly (readonly string[])[];
  /** Confusable skeletons of the exact entries and of the stems (UTS #39, `unhomoglyph`). */
  readonly skeletons: ReadonlySet<string>;
  readonly skeletonStems: readonly string[];
}

const UMLAUT: Readonly<Record<string, string>> = { ä: 'ae', ö: 'oe', ü: 'ue' };

/**
 * A value made on first use and kept: the compiled lists cost a tenth of a second of start-up, and
 * a command that parses its arguments, prints its help or runs a fixture never reads a tool.
 */
export function once<T>(make: () => T): () => T {
  let made: { value: T } | undefined;
  return () => (made ??= { value: make() }).value;
}

/** Compiles entries (`word`, `stem*`, `two words`, an unspaced `削除`). */
export function compile(...lists: readonly (readonly string[])[]): Compiled {
  const exact = new Set<string>();
  const stems: string[] = [];
  const unspaced: string[] = [];
  const phrases: string[][] = [];
  const spellings = (e: string): string[] =>
    /[äöü]/.test(e) ? [e, e.replace(/[äöü]/g, (c) => UMLAUT[c] ?? c)] : [e];
  for (const entries of lists)
    for (const raw of entries)
      for (const spelled of spellings(raw)) {
        const stem = spelled.endsWith('*');
        const body = fold(stem ? spelled.slice(0, -1) : spelled);
        const words = wordsOf(body);
        if (words.length === 0) continue;
        if (words.length > 1) phrases.push(words);
        else if (isUnspaced(body)) unspaced.push(body);
        else if (stem) stems.push(words[0] as string);
        else exact.add(words[0] as string);
      }
  return {
    exact,
    stems,
    unspaced,
    phrases,
    skeletons: new Set([...exact].map(skeleton)),
    skeletonStems: stems.map(skeleton),
  };
}

/** The confusable skeleton of a folded word: the letters it would be read as. */
export const skeleton = (word: string): string => unhomoglyph(word).toLowerCase();

// Glued words that only start or end like an entry.
const GLUE_EXCEPTIONS = new Set(
  (
    'dropdown dropdowns postcode postcodes postal postage postgres postgresql postman posture ' +
    'stopwatch blockchain blockquote clearance closeness closeup updater sendgrid killswitch ' +
    'paypal payload payloads wireframe wireless changelog changelogs'
  ).split(' '),
);

// What may follow a stem in a Latin-script word for the word to be the stem's verb: an inflection
// or a derivation of the verb, in one of the languages of `risk-lexicon.ts` (`delet|es`,
// `lösch|ungen`, `storn|ieren`, `annul|ation`, `usun|ąć`), in three optional parts: a verb-forming
// infix, a derivation, an inflection. Anything else is a further word glued on, as Germanic and
// Finno-Ugric languages build compound nouns (`verzend|kosten`: shipping costs; `lösch|taste`).
const ENDING = new RegExp(
  '^(?:ier|eer|ov|ow|iz|is|at|ific)?' +
    '(?:ung|ation|ition|ement|ment|ing|ning|ion|ani|eni|ovani|amento|amenti|imento|imenti|azione|' +
    'azioni|zione|zioni|acion|aciones|acao|acoes|ption|aminen|ande|ende|end|ant|ent|and|ando|endo|' +
    'iendo|able|ible|bar|baar|lich|ien|iec|ec|as|es|is|aa)?' +
    '(?:e|en|er|ern|es|s|a|as|o|os|i|ar|are|ere|ire|ado|ada|ados|adas|ido|ida|idos|idas|t|te|ten|' +
    'tet|et|st|ed|d|y|u|ia|iu|em|ee|ees|ez|ait|aient|era|erait|eront|ons|ont|eren|eert|eerde|' +
    'eerden|de|den|ac|uj|uje|ujesz|ie|it|za|ja|je|ne|na|ny|nie|nia|niu|ta|tu|ly|la|le|ies|sa|se|' +
    'taan|etaan|ler|lar|leri|lari|nir|nen|mek|mak|yor|kan)?$',
  'u',
);

/**
 * Whether `rest`, what follows stem `s` in a word, keeps the word the stem's verb: up to two
 * letters always, a longer {@link ENDING} (after a doubled consonant: `cancel|ling`), and any
 * ending in a script other than Latin (Cyrillic, Greek, Arabic inflect at length and glue no nouns
 * onto a verb).
 */
function inflects(s: string, rest: string): boolean {
  if (rest.length <= 2 || !/\p{Script=Latin}/u.test(rest)) return true;
  if (ENDING.test(rest)) return true;
  return rest[0] === s[s.length - 1] && ENDING.test(rest.slice(1));
}

/**
 * Whether word `w` is an entry of `c`: the whole word, a stem's word (the stem and an ending), or
 * (`glued`) the start or end of a glued word of at least seven letters (`deleteall`,
 * `kontoloeschen`), where the stem may be followed by anything (`supprimercompte`). Unspaced
 * entries are matched by {@link unspacedAt}.
 */
export function matches(c: Compiled, w: string, glued = false): boolean {
  if (c.exact.has(w)) return true;
  if (c.stems.some((s) => w.startsWith(s) && (glued || inflects(s, w.slice(s.length)))))
    return true;
  if (!glued || w.length < 7 || GLUE_EXCEPTIONS.has(w)) return false;
  for (const e of c.exact)
    if (e.length >= 4 && w.length - e.length >= 3 && (w.startsWith(e) || w.endsWith(e)))
      return true;
  for (const s of c.stems) {
    if (s.length < 4) continue;
    if (w.startsWith(s)) return true;
    for (let i = 3; i + s.length <= w.length; i++)
      if (w.startsWith(s, i) && w.length - i - s.length <= 4) return true;
  }
  return false;
}

/** Whether a glued word starts with an entry of at least three letters (`getuser`, `listchannels`). */
export function startsGlued(c: Compiled, w: string): boolean {
  if (w.length < 7 || GLUE_EXCEPTIONS.has(w)) return false;
  for (const e of c.exact)
    if (e.length >= 3 && w.length - e.length >= 4 && w.startsWith(e)) return true;
  return false;
}

/** Whether a word's skeleton is an entry's skeleton (a confusable spelling of it). */
export function matchesSkeleton(c: Compiled, w: string): boolean {
  const s = skeleton(w);
  return c.skeletons.has(s) || c.skeletonStems.some((stem) => s.startsWith(stem));
}

/** The first phrase of `c` found in `words`, and where. */
export function phraseIn(
  c: Compiled,
  words: readonly string[],
): { at: number; phrase: string } | undefined {
  for (const p of c.phrases)
    for (let i = 0; i + p.length <= words.length; i++)
      if (p.every((w, j) => words[i + j] === w)) return { at: i, phrase: p.join(' ') };
  return undefined;
}

/** The phrase of `c` that starts at `words[i]` (`tìm kiếm`, `lege an`), if any. */
export function phraseAt(c: Compiled, words: readonly string[], i: number): string | undefined {
  const p = c.phrases.find((p) => p.every((w, j) => words[i + j] === w));
  return p?.join(' ');
}

/** Every unspaced entry of `c` inside `w`, with where it starts. */
export function unspacedAt(c: Compiled, w: string): { at: number; entry: string }[] {
  const out: { at: number; entry: string }[] = [];
  for (const e of c.unspaced) {
    let at = w.indexOf(e);
    while (at >= 0) {
      out.push({ at, entry: e });
      at = w.indexOf(e, at + 1);
    }
  }
  return out;
}

/** The scripts of a word's letters that are written with spaces (Latin, Cyrillic, Greek, …). */
function scriptsOf(word: string): Set<string> {
  const scripts = new Set<string>();
  for (const ch of word) {
    if (/\p{Script=Latin}/u.test(ch)) scripts.add('latin');
    else if (/\p{Script=Cyrillic}/u.test(ch)) scripts.add('cyrillic');
    else if (/\p{Script=Greek}/u.test(ch)) scripts.add('greek');
    else if (/\p{Script=Armenian}/u.test(ch)) scripts.add('armenian');
    else if (/\p{Script=Cherokee}/u.test(ch)) scripts.add('cherokee');
  }
  return scripts;
}

/** True when a word mixes letters of two alphabets (`dеlete` with a Cyrillic `е`). */
export const mixesScripts = (word: string): boolean => scriptsOf(word).size > 1;

/** True when a word is written only in a non-Latin alphabet that has Latin look-alikes. */
export const lookalikeScript = (word: string): boolean => {
  const s = scriptsOf(word);
  return s.size === 1 && !s.has('latin');
};

export { isUnspaced };
