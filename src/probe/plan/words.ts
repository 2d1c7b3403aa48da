/**
 * Words of a name or a sentence, in any script. A name may be `snake_case`, `kebab-case`,
 * `camelCase`, `PascalCase`, separated by dots or spaces, or glued (`deleteall`); a sentence may be
 * in any language. Letters are folded to their base (`löschen` → `loschen`, `usuń` → `usun`,
 * `İptal` → `iptal`), so that a lexicon written once matches every spelling; a German umlaut's
 * transliteration (`loeschen`) is matched by the lexicon listing both (see `risk-lexicon.ts`).
 *
 * Scripts without spaces (Han, kana, Hangul) stay one word per run of that script; the lexicon
 * matches inside them (see `tool-risk.ts`).
 */

// Letters NFKD does not decompose into a base letter and a mark.
const FOLDS: Readonly<Record<string, string>> = {
  ß: 'ss',
  ł: 'l',
  ø: 'o',
  æ: 'ae',
  œ: 'oe',
  đ: 'd',
  ð: 'd',
  þ: 'th',
  ı: 'i',
  ё: 'е',
};

// Marks that are diacritics (Latin, Greek, Cyrillic accents, Hebrew points, Arabic vowel signs),
// removed by folding. The vowel signs of Brahmic scripts (Devanagari `देखें`) are letters of the
// word: removing them leaves a stub that many words share (`दख`).
const DIACRITIC = /[\p{Script=Inherited}\p{Script=Hebrew}\p{Script=Arabic}]/u;

// Text with nothing but ASCII folds to its lower case: no marks, nothing for NFKD to decompose.
const ASCII = /^\p{ASCII}*$/u;

/** Lower case, diacritics removed, the few letters NFKD leaves alone mapped to their base. */
export function fold(text: string): string {
  if (ASCII.test(text)) return text.toLowerCase();
  return text
    .normalize('NFKD')
    .replace(/\p{M}/gu, (m) => (DIACRITIC.test(m) ? '' : m))
    .toLowerCase()
    .replace(/[ßłøæœđðþıё]/gu, (c) => FOLDS[c] ?? c)
    .normalize('NFC');
}

const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}ー]/u;
const HANGUL = /\p{Script=Hangul}/u;

/** The script class of a letter, where a change of script separates words (`delete记录`). */
function scriptOf(c: string): 'cjk' | 'hangul' | 'other' {
  // Every Han, kana and Hangul letter lies above U+1100.
  if (c.charCodeAt(0) < 0x1100) return 'other';
  if (CJK.test(c)) return 'cjk';
  if (HANGUL.test(c)) return 'hangul';
  return 'other';
}

/** True when `word` is in a script written without spaces (Han, kana, Hangul). */
export const isUnspaced = (word: string): boolean =>
  word.length > 0 && scriptOf(word[0] as string) !== 'other';

const MAX_TEXT = 20_000;

/**
 * The folded lower-case words of a name (`snake_case`, `kebab-case`, `camelCase`, `HTTPServer`) or
 * a sentence, in any script. Bounded: only the first 20,000 characters are read.
 */
export function wordsOf(text: string): string[] {
  const split = text
    .slice(0, MAX_TEXT)
    // camelCase and acronyms, in any alphabet: `deleteAccount`, `HTTPRequest`, `kontoLöschen`.
    .replace(/(\p{Ll}|\p{N})(\p{Lu})/gu, '$1 $2')
    .replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, '$1 $2');
  const out: string[] = [];
  // A mark that folding keeps (a Devanagari vowel sign) is part of its word.
  for (const raw of fold(split).split(/[^\p{L}\p{M}\p{N}']+/u)) {
    const word = raw.replace(/^'+|'+$/g, '');
    if (word.length === 0) continue;
    // A change of script is a word boundary: `delete记录` is two words.
    let start = 0;
    for (let i = 1; i < word.length; i++) {
      if (scriptOf(word[i] as string) !== scriptOf(word[i - 1] as string)) {
        out.push(word.slice(start, i));
        start = i;
      }
    }
    out.push(word.slice(start));
  }
  return out;
}

/** Sentences and clauses of a text, each as its words (split at `.;:!?`, line breaks, `。` and `।`). */
export function clausesOf(text: string): string[][] {
  return text
    .slice(0, MAX_TEXT)
    .split(/[.;:!?\n\r。！？；]+(?:\s|$)|[\n\r。！？；।]+/u)
    .map((c) => wordsOf(c))
    .filter((c) => c.length > 0);
}
