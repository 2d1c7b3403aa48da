/**
 * A stdio command line as reports show it and baselines match it: each word as the program receives
 * it, quoted only where a shell would read it otherwise. `npx -y @scope/pkg --port=3000` is shown as
 * the user wrote it, not as `npx -y \@scope/pkg --port\=3000` (shell-quote escapes every character
 * it does not know, so a hand-written baseline entry never matched). Reading goes through the same
 * splitter, so an old report's or baseline's escaped spelling reads back to the same words.
 */
import { parse } from 'shell-quote';

// Characters no POSIX shell treats specially inside a word (`=` only matters before the command).
const PLAIN = /^[A-Za-z0-9_@%+=:,./-]+$/;

/** One word, quoted only when it needs to be: `@scope/pkg`, `--x=1`, `'a b'`, `'it'\''s'`. */
export function shellWord(word: string): string {
  return PLAIN.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The words joined as one command line, each {@link shellWord}. */
export function shellLine(words: readonly string[]): string {
  return words.map(shellWord).join(' ');
}

/**
 * A command line in its canonical spelling: split as a shell would (variables kept literal, an
 * operator kept as its text), then joined with {@link shellLine}. `npx -y \@scope/pkg` and
 * `npx  -y '@scope/pkg'` are both `npx -y @scope/pkg`.
 */
export function canonicalLine(line: string): string {
  const words = parse(line, (name) => `$${name}`).map((t) => {
    if (typeof t === 'string') return t;
    if ('op' in t) return t.op === 'glob' ? t.pattern : t.op;
    return `#${t.comment}`;
  });
  return shellLine(words);
}
