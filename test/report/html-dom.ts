/**
 * The HTML report read back with a real HTML parser (parse5, the WHATWG algorithm browsers run),
 * for the tests: the tree as a browser would build it, every parse error counted.
 */
import { parse, type DefaultTreeAdapterMap, type ParserError } from 'parse5';

/** A parsed element. */
export type Element = DefaultTreeAdapterMap['element'];
type Node = DefaultTreeAdapterMap['node'];
type Parent = DefaultTreeAdapterMap['parentNode'];

/** The document `html` parses to; throws on any parse error, naming it and where it happened. */
export function parseStrict(html: string): Parent {
  const errors: ParserError[] = [];
  const doc = parse(html, { onParseError: (e) => errors.push(e) });
  if (errors.length > 0) {
    const first = errors[0] as ParserError;
    throw new Error(
      `${errors.length} HTML parse error(s), first ${first.code} at ${first.startLine}:${first.startCol}: ${html.split('\n')[first.startLine - 1]?.slice(Math.max(0, first.startCol - 60), first.startCol + 60)}`,
    );
  }
  return doc;
}

const children = (n: Node | Parent): Node[] => {
  const own = 'childNodes' in n ? n.childNodes : [];
  // A <template>'s content is a fragment of its own, not among its child nodes.
  return n.nodeName === 'template' && 'content' in n ? [...own, ...n.content.childNodes] : own;
};

/** Every element under `root`, in document order. */
export function elements(root: Node | Parent): Element[] {
  const out: Element[] = [];
  const walk = (n: Node | Parent): void => {
    for (const c of children(n)) {
      if ('tagName' in c) out.push(c);
      walk(c);
    }
  };
  walk(root);
  return out;
}

/** The text of `root` as a browser would show it in the tree: every text node, concatenated. */
export function textOf(root: Node | Parent): string {
  let text = '';
  const walk = (n: Node | Parent): void => {
    for (const c of children(n)) {
      if (c.nodeName === '#text' && 'value' in c) text += c.value;
      walk(c);
    }
  };
  walk(root);
  return text;
}
