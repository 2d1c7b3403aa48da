/**
 * The one rendering rule for every human-readable output: what the target sent is shown, never
 * obeyed. A server's name, tool names, answers and error messages reach the terminal through the
 * text report, progress lines and warnings; a raw `ESC[1A ESC[2K` there erases the line above, an
 * OSC retitles the terminal, writes the clipboard (OSC 52) or plants a hyperlink (OSC 8), and a
 * bidirectional override makes text read other than it is. So C0 controls other than newline and
 * tab, DEL, C1 controls, and the bidi overrides, isolates and marks are written escaped (`\x1b`,
 * `\u202e`). Lines stay lines: `\n` and `\t` pass, `\r` does not (it rewrites the line it ends).
 *
 * JSON keeps the exact value: {@link escapeJsonText} only spells the same characters as `\u`
 * escapes, which every JSON reader decodes back to the bytes the target sent.
 */

// C0 but \t and \n, DEL, C1; ALM, LRM/RLM, embeddings and overrides, isolates.
const UNSAFE =
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
// The same, for JSON text, where C0 controls are already escaped by `JSON.stringify`.
const UNSAFE_IN_JSON = /[\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

const hex = (c: string, width: number): string =>
  (c.codePointAt(0) ?? 0).toString(16).padStart(width, '0');

/** `s` with every unsafe character written as a visible escape (`\x1b`, `\x9b`, `\u202e`). */
export function visible(s: string): string {
  return s.replace(UNSAFE, (c) =>
    c.charCodeAt(0) <= 0xff ? `\\x${hex(c, 2)}` : `\\u${hex(c, 4)}`,
  );
}

/** `s` {@link visible} and on one line: a name in a table cell, a heading or a prefix (`\n` as `\x0a`). */
export function visibleLine(s: string): string {
  return visible(s).replace(/[\n\t]/g, (c) => `\\x${hex(c, 2)}`);
}

/** A deep copy of `value` with every string, keys included, made {@link visible}. */
export function visibleDeep<T>(value: T): T {
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return visible(v);
    if (Array.isArray(v)) return v.map(walk);
    if (typeof v === 'object' && v !== null)
      return Object.fromEntries(Object.entries(v).map(([k, item]) => [visible(k), walk(item)]));
    return v;
  };
  return walk(value) as T;
}

/**
 * JSON text (from `JSON.stringify`) with DEL, C1 and bidi characters spelled `\uXXXX`: the same
 * JSON value, safe to print. Such characters can only occur inside JSON strings, where `\u` is valid.
 */
export function escapeJsonText(json: string): string {
  return json.replace(UNSAFE_IN_JSON, (c) => `\\u${hex(c, 4)}`);
}

/**
 * XML text with the same characters as character references (`&#x202e;`). Only for text outside
 * CDATA sections, where references are decoded.
 */
export function escapeXmlText(xml: string): string {
  return xml.replace(UNSAFE_IN_JSON, (c) => `&#x${hex(c, 4)};`);
}
