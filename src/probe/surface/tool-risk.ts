/**
 * Which tools the scanner leaves alone unless the user opts in, and which values it may hand to
 * the tools it does call. The rule, in short (docs/scanner.md, "What the scanner sends"):
 *
 * 1. **Destructive** tools are not called without `--include-destructive`. Annotations are read
 *    first, with the spec's defaults: a tool that has an annotations object is destructive unless
 *    `readOnlyHint` is true or `destructiveHint` is false, and one that is not read-only and says
 *    `openWorldHint: true` acts on others. Then the name, the title and the description are read
 *    in any of the languages of `risk-lexicon.ts`, glued or separated: a verb that deletes,
 *    cancels, sends, pays, publishes, merges, … makes the tool destructive whatever its
 *    annotations say (a wrong hint must not cost the user their data); a verb of an ordinary change
 *    (update, set, rename) does unless the annotations clear it. A name that starts (or, in the
 *    languages that put the verb last, ends) with a verb that reads (`get_deleted_items`,
 *    `konto_anzeigen`) reads.
 * 2. **Dangerous slots**: a tool with a parameter, at any depth, that takes a shell command, code,
 *    a database query, a URL the server will fetch or a file path is not called without
 *    `--include-destructive` (the canaries would become commands, queries, requests or paths on
 *    someone's machine), whatever the tool is called; and no value the server minted ever goes into
 *    such a slot without `--allow-minted-in-risky` (the server would then choose what runs).
 * 3. **Only what the scan created**: a tool that writes gets, besides canaries and the values of its
 *    own schema, only values that a call of this scan created (see {@link MintedValues}); a value
 *    the server handed out that the scan did not make (a listed channel, a listed account) goes to
 *    no writing tool without `--include-destructive`, and to no destructive tool at all.
 *
 * The rules err towards caution: a tool left alone costs coverage, and the report says which and
 * why; a tool called wrongly costs the target's owner.
 */
import {
  CONJUNCTIONS,
  CREATE,
  DESTROY,
  EXECUTE,
  IRREVERSIBLE,
  LEAD_ONLY,
  MODIFY,
  NEGATION_AFTER_CJK,
  NEGATION_BEFORE_CJK,
  NEGATIONS,
  READ,
  RISKY_PARAMETER,
  RISKY_PARAMETER_SUFFIXES,
  RISKY_PHRASES,
} from './risk-lexicon.js';
import { clausesOf, fold, isUnspaced, wordsOf } from './words.js';
import type { ToolInfo } from '../types.js';

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

// ---------------------------------------------------------------------------------------------
// The lexicon, compiled.

interface Compiled {
  readonly exact: ReadonlySet<string>;
  readonly stems: readonly string[];
  readonly unspaced: readonly string[];
  /** Multi-word entries, as their words. */
  readonly phrases: readonly (readonly string[])[];
}

const UMLAUT: Readonly<Record<string, string>> = { ä: 'ae', ö: 'oe', ü: 'ue' };

function compile(entries: readonly string[]): Compiled {
  const exact = new Set<string>();
  const stems: string[] = [];
  const unspaced: string[] = [];
  const phrases: string[][] = [];
  const spellings = (e: string): string[] =>
    /[äöü]/.test(e) ? [e, e.replace(/[äöü]/g, (c) => UMLAUT[c] ?? c)] : [e];
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
  return { exact, stems, unspaced, phrases };
}

const DESTROY_C = compile(DESTROY);
const LEAD_C = compile(LEAD_ONLY);
const MODIFY_C = compile(MODIFY);
const READ_C = compile(READ);
const EXECUTE_C = compile(EXECUTE);
const CREATE_C = compile(CREATE);
const NEGATION_SET = new Set(NEGATIONS.map(fold));
const CONJUNCTION_SET = new Set(CONJUNCTIONS.map(fold));
// A name that starts with one of these asks a question (`is_deleted`, `has_cancelled`).
const READ_NAME_ONLY = new Set(['is', 'has', 'was', 'can', 'should', 'does']);
// Words a glued name starts or ends with that only look like a verb of the lexicon.
const GLUE_EXCEPTIONS = new Set(
  (
    'dropdown dropdowns postcode postcodes postal postage postgres postgresql postman posture ' +
    'stopwatch blockchain blockquote clearance closeness closeup updater sendgrid killswitch ' +
    'paypal payload payloads wireframe wireless'
  ).split(' '),
);
// Words before a verb that keep it the clause's own (`this tool deletes`, `will send`).
const SUBJECTS = new Set(
  (
    'this it tool will which that also can may dieses dieser diese es wird cette cet il elle ' +
    'esta este ele ela questo questa deze dit het ten ta to bu этот эта это'
  ).split(' '),
);
// A clause that starts with one of these points elsewhere ("Use delete_x to remove it").
const POINTERS = new Set('use see call like unlike instead for to via prefer'.split(' '));
// Polite endings after a verb in the unspaced scripts: `表示します`, `조회합니다`.
const CJK_ENDINGS = /(します|する|した|ました|ます|して|합니다|하다|해요|한다|하기|을|를|の)+$/u;

/** The entry of `c` that word `w` is, if any (`glued`: also the start or end of a glued word). */
function matchWord(c: Compiled, w: string, glued: boolean): string | undefined {
  if (isUnspaced(w)) return c.unspaced.find((e) => w.includes(e));
  if (c.exact.has(w)) return w;
  const stem = c.stems.find((s) => w.startsWith(s));
  if (stem !== undefined) return w;
  if (!glued || w.length < 7 || GLUE_EXCEPTIONS.has(w)) return undefined;
  for (const e of c.exact) {
    if (e.length < 4 || w.length - e.length < 3) continue;
    if (w.startsWith(e) || w.endsWith(e)) return e;
  }
  for (const s of c.stems) {
    if (s.length < 4) continue;
    for (let i = 3; i + s.length <= w.length; i++)
      if (w.startsWith(s, i) && w.length - i - s.length <= 4) return s;
  }
  return undefined;
}

/** The first phrase of `c` found in `words`, and where. */
function matchPhrase(
  c: Compiled,
  words: readonly string[],
): { at: number; phrase: string } | undefined {
  for (const p of c.phrases)
    for (let i = 0; i + p.length <= words.length; i++)
      if (p.every((w, j) => words[i + j] === w)) return { at: i, phrase: p.join(' ') };
  return undefined;
}

/** True when the word reads: a reader verb, or a glued one (`listchannels`, `getdeleted`). */
function isReader(w: string): boolean {
  if (isUnspaced(w)) {
    const bare = w.replace(CJK_ENDINGS, '');
    return READ_C.unspaced.some((e) => bare.startsWith(e) || bare.endsWith(e));
  }
  if (matchWord(READ_C, w, false) !== undefined || READ_NAME_ONLY.has(w)) return true;
  if (w.length < 7 || GLUE_EXCEPTIONS.has(w)) return false;
  for (const e of READ_C.exact)
    if (e.length >= 3 && w.length - e.length >= 4 && w.startsWith(e)) return true;
  return false;
}

/** Whether a CJK verb inside `w` is negated there (`不删除`, `削除しない`, `삭제하지 않`). */
function negatedInside(w: string, entry: string): boolean {
  const at = w.indexOf(entry);
  const before = w.slice(Math.max(0, at - 2), at);
  const after = w.slice(at + entry.length, at + entry.length + 6);
  return (
    NEGATION_BEFORE_CJK.some((n) => before.includes(n)) ||
    NEGATION_AFTER_CJK.some((n) => after.includes(n))
  );
}

// ---------------------------------------------------------------------------------------------
// Names and descriptions.

/** A verb found, and which kind: `destroy` counts always, `modify` unless annotations clear it. */
interface Found {
  readonly kind: 'destroy' | 'modify';
  readonly word: string;
}

/** Splits at conjunctions: `get_and_delete` is `get`, then `delete`. */
function segments(words: readonly string[]): string[][] {
  const out: string[][] = [[]];
  for (const w of words) {
    if (CONJUNCTION_SET.has(w)) out.push([]);
    else out[out.length - 1]!.push(w);
  }
  return out.filter((s) => s.length > 0);
}

/** The verb a name (or title) says, if any. */
function nameVerb(name: string): Found | undefined {
  const all = wordsOf(name);
  for (const words of segments(all)) {
    const first = words[0] as string;
    const last = words[words.length - 1] as string;
    const destroyFirst = matchWord(DESTROY_C, first, true);
    if (destroyFirst !== undefined && !isReader(first)) return { kind: 'destroy', word: first };
    // A reader leads (or, verb-last, ends the name): the other words are what it reads.
    if (
      isReader(first) ||
      (words.length > 1 && isReader(last) && !matchWord(DESTROY_C, last, false))
    )
      continue;
    const phrase = matchPhrase(DESTROY_C, words);
    if (phrase !== undefined) return { kind: 'destroy', word: phrase.phrase };
    for (const w of words) {
      if (matchWord(DESTROY_C, w, true) !== undefined) return { kind: 'destroy', word: w };
    }
    for (const w of [first, last])
      if (matchWord(LEAD_C, w, false) !== undefined) return { kind: 'destroy', word: w };
    const modPhrase = matchPhrase(MODIFY_C, words);
    if (modPhrase !== undefined) return { kind: 'modify', word: modPhrase.phrase };
    for (const w of words)
      if (matchWord(MODIFY_C, w, true) !== undefined) return { kind: 'modify', word: w };
  }
  return undefined;
}

const negatedAt = (words: readonly string[], i: number): boolean =>
  words.slice(Math.max(0, i - 3), i).some((w) => NEGATION_SET.has(w)) ||
  words.slice(i + 1, i + 3).some((w) => NEGATION_SET.has(w));

/**
 * Whether word `i` of segment `ws` is negated within its clause: in the segment, or by a negation
 * that opens the clause's run of segments joined by `or`/`and` ("never deletes or removes").
 */
function negatedInClause(clause: readonly string[], ws: readonly string[], i: number): boolean {
  if (negatedAt(ws, i)) return true;
  const start = clause.indexOf(ws[0] as string);
  const before = clause.slice(0, Math.max(0, start));
  const lastNegation = before.map((w) => NEGATION_SET.has(w)).lastIndexOf(true);
  return lastNegation >= 0 && before.length - lastNegation <= 6;
}

/** Identifiers in prose (`delete_document`, `removeItem`) name other tools, not this one's act. */
const stripIdentifiers = (text: string): string =>
  text.replace(
    /`[^`]*`|\b[\p{L}\p{N}]+(?:_[\p{L}\p{N}]+)+\b|\b\p{Ll}+\p{Lu}[\p{L}\p{N}]*\b/gu,
    ' ',
  );

/** The verb a description says of its own tool, if any. */
function descriptionVerb(description: string): Found | undefined {
  const folded = fold(description);
  const irreversible = IRREVERSIBLE.find((r) => r.test(folded));
  if (irreversible !== undefined)
    return { kind: 'destroy', word: irreversible.exec(folded)?.[0] ?? 'permanently' };
  for (const clause of clausesOf(stripIdentifiers(description)))
    for (const words of segments(clause)) {
      // A negation reaches across `or`: "never deletes or removes anything".
      const negatedAt = (ws: readonly string[], i: number): boolean =>
        negatedInClause(clause, ws, i);
      const first = words[0] as string;
      if (isReader(first) || POINTERS.has(first)) continue;
      const phrase = matchPhrase(DESTROY_C, words);
      if (phrase !== undefined && !negatedAt(words, phrase.at))
        return { kind: 'destroy', word: phrase.phrase };
      for (let i = 0; i < words.length; i++) {
        const w = words[i] as string;
        if (isUnspaced(w)) {
          if (isReader(w)) continue;
          const e = matchWord(DESTROY_C, w, false);
          if (e !== undefined && !negatedInside(w, e)) return { kind: 'destroy', word: e };
          const m = matchWord(MODIFY_C, w, false);
          if (m !== undefined && !negatedInside(w, m)) return { kind: 'modify', word: m };
          continue;
        }
        if (matchWord(DESTROY_C, w, false) !== undefined && !negatedAt(words, i))
          return { kind: 'destroy', word: w };
        // Verbs that are also nouns count where a clause's own verb stands: first, or after
        // its subject (`This tool updates …`).
        const leads = words.slice(0, i).every((b) => SUBJECTS.has(b)) && i <= 2;
        if (!leads || negatedAt(words, i)) continue;
        if (matchWord(LEAD_C, w, false) !== undefined) return { kind: 'destroy', word: w };
        if (matchWord(MODIFY_C, w, false) !== undefined) return { kind: 'modify', word: w };
      }
    }
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Parameters, at any depth.

/** What a dangerous slot takes. */
export type SlotRole = 'command' | 'code' | 'query' | 'url' | 'path';

const ROLE_WORDS: readonly [SlotRole, ReadonlySet<string>][] = (
  Object.entries(RISKY_PARAMETER) as [SlotRole, readonly string[]][]
).map(([role, words]) => [role, new Set(words.map((w) => wordsOf(w).join('')))]);
const SUFFIXES = new Set(RISKY_PARAMETER_SUFFIXES.map((w) => wordsOf(w).join('')));
// Words that name the role whatever else the name holds (`shellCommandLine`, `sql_text`).
const ANYWHERE: Readonly<Record<string, SlotRole>> = {
  command: 'command',
  cmd: 'command',
  shell: 'command',
  sql: 'query',
  url: 'url',
  uri: 'url',
  href: 'url',
  webhook: 'url',
  endpoint: 'url',
  filepath: 'path',
  filename: 'path',
  path: 'path',
  script: 'code',
};
const URI_FORMATS = new Set([
  'uri',
  'uri-reference',
  'iri',
  'iri-reference',
  'url',
  'uri-template',
]);
// A `query` is a database query only where something says so; elsewhere it is search text.
const DATABASE =
  /\b(sql|database|db|table|tables|cypher|sparql|graphql|select|datenbank|base de donnees|base de datos|banco de dados|banca dati|databank|baza danych|базы? данных|veritabani)\b|数据库|資料庫|データベース|데이터베이스/u;

function roleOfName(name: string): SlotRole | undefined {
  const words = wordsOf(name);
  if (words.length === 0) return undefined;
  const joined = words.join('');
  for (const [role, set] of ROLE_WORDS) if (set.has(joined)) return role;
  const last = words[words.length - 1] as string;
  if (words.length > 1 && SUFFIXES.has(last)) {
    if (last === 'query') return 'query';
    for (const [role, set] of ROLE_WORDS) if (set.has(last)) return role;
  }
  for (const w of words) {
    const role = ANYWHERE[w];
    if (role !== undefined) return role;
    if (isUnspaced(w))
      for (const [r, set] of ROLE_WORDS)
        for (const e of set) if (isUnspaced(e) && w.includes(e)) return r;
  }
  if (joined === 'query' || last === 'query') return 'query';
  return undefined;
}

function roleOfDescription(text: string): SlotRole | undefined {
  const folded = fold(text);
  for (const phrase of RISKY_PHRASES) {
    const found = phrase.exec(folded);
    if (found === null) continue;
    const t = found[0];
    if (/(sql|cypher|sparql|graphql|quer|database|db)/u.test(t)) return 'query';
    if (
      /(url|uri|web|link|address|page|site|feed|endpoint|resource|webhook|fetch|download|crawl|scrape)/u.test(
        t,
      )
    )
      return 'url';
    if (
      /(path|file|director|folder|datei|fichier|archivo|arquivo|pfad|chemin|ruta|caminho|percorso|ファイル|文件|檔案|파일)/u.test(
        t,
      )
    )
      return 'path';
    if (/(code|eval|expression|javascript|python|snippet|program)/u.test(t)) return 'code';
    return 'command';
  }
  return undefined;
}

/**
 * What a parameter with this name (and, if given, this JSON Schema) takes, when it is a dangerous
 * slot: a command, code, a query, a URL, a file path. `database`: the tool speaks of a database, so
 * a plain `query` is one (elsewhere a `query` is search text, and only {@link isRiskyParameter}
 * keeps minted values out of it).
 */
export function slotRole(name: string, schema?: unknown, database = false): SlotRole | undefined {
  if (isRecord(schema) && typeof schema.format === 'string' && URI_FORMATS.has(schema.format))
    return 'url';
  const byName = roleOfName(name);
  if (byName !== undefined && (byName !== 'query' || database || wordsOf(name).includes('sql')))
    return byName;
  const described =
    isRecord(schema) && typeof schema.description === 'string'
      ? roleOfDescription(schema.description)
      : undefined;
  if (described !== undefined) return described;
  if (
    byName === 'query' &&
    isRecord(schema) &&
    typeof schema.description === 'string' &&
    DATABASE.test(fold(schema.description))
  )
    return 'query';
  return undefined;
}

/**
 * True when a parameter with this name (and, if given, this JSON Schema) may take a command, code,
 * a query of any kind, a URL or a file path: no value the server minted goes there without
 * `--allow-minted-in-risky`.
 */
export function isRiskyParameter(name: string, schema?: unknown): boolean {
  return slotRole(name, schema, true) !== undefined;
}

/** Matches {@link isRiskyParameter}'s name rule, for callers that only have a name. */
export const RISKY_PARAMETER_NAME = {
  test: (name: string): boolean => isRiskyParameter(name),
} as const;

const MAX_NODES = 400;
const MAX_DEPTH = 10;

/** A parameter at some depth, with the names of its path. */
interface Param {
  readonly path: readonly string[];
  readonly schema: Record<string, unknown>;
}

/**
 * Every named parameter of an input schema at any depth: `properties`, `items`, `prefixItems`,
 * `additionalProperties`, `anyOf`/`oneOf`/`allOf`, and local `$ref`s into `$defs`/`definitions`
 * (each followed once per path). Bounded in depth and in nodes.
 */
export function paramsOf(root: unknown): Param[] {
  const out: Param[] = [];
  let nodes = 0;
  const resolve = (ref: string): unknown => {
    if (!ref.startsWith('#/')) return undefined;
    let at: unknown = root;
    for (const part of ref.slice(2).split('/')) {
      const key = decodeURIComponent(part).replace(/~1/g, '/').replace(/~0/g, '~');
      if (!isRecord(at)) return undefined;
      at = at[key];
    }
    return at;
  };
  const visit = (
    schema: unknown,
    path: readonly string[],
    depth: number,
    refs: readonly string[],
  ): void => {
    if (!isRecord(schema) || depth > MAX_DEPTH || ++nodes > MAX_NODES) return;
    const ref = schema['$ref'];
    if (typeof ref === 'string' && !refs.includes(ref))
      visit(resolve(ref), path, depth + 1, [...refs, ref]);
    if (isRecord(schema['properties']))
      for (const [name, sub] of Object.entries(schema['properties'])) {
        if (!isRecord(sub)) continue;
        out.push({ path: [...path, name], schema: sub });
        visit(sub, [...path, name], depth + 1, refs);
      }
    for (const key of ['items', 'additionalProperties', 'contains', 'not'])
      if (isRecord(schema[key])) visit(schema[key], path, depth + 1, refs);
    for (const key of ['anyOf', 'oneOf', 'allOf', 'prefixItems'])
      if (Array.isArray(schema[key]))
        for (const alt of schema[key]) visit(alt, path, depth + 1, refs);
  };
  visit(root, [], 0, []);
  return out;
}

/** The values a schema offers itself (enum, const, default, examples), at any depth. */
function schemaValues(root: unknown): Set<string> {
  const values = new Set<string>();
  const add = (v: unknown): void => {
    if (typeof v === 'string' || typeof v === 'number') values.add(String(v));
  };
  const params = [{ path: [], schema: isRecord(root) ? root : {} }, ...paramsOf(root)];
  for (const { schema } of params) {
    if (Array.isArray(schema['enum'])) schema['enum'].forEach(add);
    if (Array.isArray(schema['examples'])) schema['examples'].forEach(add);
    add(schema['const']);
    add(schema['default']);
  }
  return values;
}

// ---------------------------------------------------------------------------------------------
// The judgement.

/** How the scan treats a tool. */
export interface ToolJudgement {
  /** Why it may destroy, undo, spend, publish or reach others; absent when it does not. */
  readonly destructive?: string;
  /** Why it may run a command, code or a query, fetch a URL or touch files; absent otherwise. */
  readonly execution?: string;
  /** It reads (its name leads with a verb that reads, or it declares `readOnlyHint: true`). */
  readonly reads: boolean;
  /** It may write: anything but a reader (a writer gets only values the scan created). */
  readonly writes: boolean;
}

const cache = new WeakMap<ToolInfo, ToolJudgement>();

/** Judges a tool from everything it declares (see the module's comment). */
export function judgeTool(tool: ToolInfo): ToolJudgement {
  const cached = cache.get(tool);
  if (cached !== undefined) return cached;
  const judged = judge(tool);
  cache.set(tool, judged);
  return judged;
}

function judge(tool: ToolInfo): ToolJudgement {
  const ann = isRecord(tool.annotations) ? tool.annotations : undefined;
  const title =
    typeof ann?.['title'] === 'string'
      ? ann['title']
      : typeof tool.title === 'string'
        ? tool.title
        : '';
  const readOnly = ann?.['readOnlyHint'] === true;
  const cleared = ann !== undefined && (readOnly || ann['destructiveHint'] === false);
  const description = typeof tool.description === 'string' ? tool.description : '';

  let destructive: string | undefined;
  // An explicit `destructiveHint: true` wins over everything, `readOnlyHint: true` included.
  if (ann !== undefined && (!cleared || ann['destructiveHint'] === true))
    destructive =
      ann['destructiveHint'] === true
        ? 'declares destructiveHint: true'
        : `declares annotations without readOnlyHint: true or destructiveHint: false (the spec's default is destructive)`;
  if (destructive === undefined && ann !== undefined && !readOnly && ann['openWorldHint'] === true)
    destructive = 'declares openWorldHint: true and is not read-only (it acts on others)';
  const byName = nameVerb(tool.name) ?? (title ? nameVerb(title) : undefined);
  if (destructive === undefined && byName !== undefined && (byName.kind === 'destroy' || !cleared))
    destructive = `its ${nameVerb(tool.name) ? 'name' : 'title'} says "${byName.word}"`;
  // A description that says it deletes counts even under `readOnlyHint: true`: hints are hints.
  const byDescription = description ? descriptionVerb(description) : undefined;
  if (
    destructive === undefined &&
    byDescription !== undefined &&
    (byDescription.kind === 'destroy' || !cleared)
  )
    destructive = `its description says "${byDescription.word}"`;
  const params = paramsOf(tool.inputSchema);
  if (destructive === undefined) {
    // An enum, const or default that names a destructive act (`action: "delete"`) is a mode.
    for (const p of params) {
      const offered = [
        ...(Array.isArray(p.schema['enum']) ? p.schema['enum'] : []),
        p.schema['const'],
        p.schema['default'],
      ].filter((v): v is string => typeof v === 'string');
      const bad = offered.find((v) => {
        const found = nameVerb(v);
        return found !== undefined && (found.kind === 'destroy' || !cleared);
      });
      if (bad !== undefined) {
        destructive = `its parameter "${p.path.join('.')}" offers "${bad}"`;
        break;
      }
    }
  }

  let execution: string | undefined;
  const nameWords = wordsOf(`${tool.name} ${title}`);
  const inName = nameWords.find((w) => matchWord(EXECUTE_C, w, false) !== undefined);
  if (inName !== undefined) execution = `its name says "${inName}"`;
  if (execution === undefined && description) {
    const role = roleOfDescription(stripIdentifiers(description));
    const folded = fold(description);
    if (role !== undefined && role !== 'url' && role !== 'path')
      execution = `its description says it runs ${role === 'query' ? 'a query' : role === 'code' ? 'code' : 'a command'}`;
    else if (
      /\b(fetch|fetches|download|downloads|crawl|crawls|scrape|scrapes|visit|visits|open|opens) (a |an |the |any |given )?(remote )?(url|uri|web ?page|website|link)\b/u.test(
        folded,
      )
    )
      execution = 'its description says it fetches a URL';
  }
  const database = DATABASE.test(fold(`${tool.name} ${title} ${description}`));
  if (execution === undefined)
    for (const p of params) {
      const role = slotRole(p.path[p.path.length - 1] as string, p.schema, database);
      if (role === undefined) continue;
      execution = `it takes ${ROLE_TEXT[role]} in "${p.path.join('.')}"`;
      break;
    }

  const reads = readOnly || (byName === undefined && readerName(tool.name));
  const writes =
    destructive !== undefined ||
    execution !== undefined ||
    (!readOnly && (ann?.['readOnlyHint'] === false || !reads || createName(tool.name)));
  return {
    ...(destructive === undefined ? {} : { destructive }),
    ...(execution === undefined ? {} : { execution }),
    reads: reads && destructive === undefined,
    writes,
  };
}

const ROLE_TEXT: Readonly<Record<SlotRole, string>> = {
  command: 'a command',
  code: 'code',
  query: 'a database query',
  url: 'a URL',
  path: 'a file path',
};

/** The name leads (or ends) with a verb that reads. */
function readerName(name: string): boolean {
  const words = wordsOf(name);
  if (words.length === 0) return false;
  return (
    isReader(words[0] as string) ||
    (words.length > 1 && isReader(words[words.length - 1] as string))
  );
}

/** The name says it creates or adds something. */
function createName(name: string): boolean {
  return wordsOf(name).some((w) => matchWord(CREATE_C, w, true) !== undefined);
}

/** Why a tool counts as destructive, or `undefined` when it does not. */
export function destructiveReason(tool: ToolInfo): string | undefined {
  return judgeTool(tool).destructive;
}

/** Why a tool counts as running commands, code or queries, fetching URLs or touching files. */
export function executionReason(tool: ToolInfo): string | undefined {
  return judgeTool(tool).execution;
}

/**
 * Why the scanner does not call this tool without `--include-destructive`, or `undefined` when it
 * may: it may destroy data or act on others, or it takes a command, code, a query, a URL or a path.
 */
export function riskReason(tool: ToolInfo): string | undefined {
  const j = judgeTool(tool);
  if (j.destructive !== undefined) return `may destroy data: ${j.destructive}`;
  if (j.execution !== undefined)
    return `may run commands, code or queries, fetch URLs or touch files: ${j.execution}`;
  return undefined;
}

/** The flag that would let the scan call a tool it left alone. */
export type OptIn = '--include-destructive' | '--allow-minted-in-risky';

/** A tool the scan did not call, why, and the flag that would call it. */
export interface UncalledTool {
  readonly tool: string;
  readonly why: string;
  readonly flag: OptIn;
}

/** Every tool of `tools` the scan leaves alone under this opt-in, with its reason, in list order. */
export function uncalledTools(
  tools: readonly ToolInfo[],
  includeDestructive: boolean,
): UncalledTool[] {
  if (includeDestructive) return [];
  return tools.flatMap((t) => {
    const why = riskReason(t);
    return why === undefined
      ? []
      : [
          {
            tool: t.name,
            why: `${why} (needs --include-destructive)`,
            flag: '--include-destructive' as const,
          },
        ];
  });
}

// ---------------------------------------------------------------------------------------------
// Where each value came from.

/** Strings this short are too common to say where a value came from. */
const MIN_MINTED_LENGTH = 6;
const MAX_MINTED = 4096;
/** Integers this large are ids; smaller ones are counts and placeholders. */
const MIN_MINTED_NUMBER = 100;

/** Where a learned answer came from. */
export interface AnswerSource {
  /** The tool called (`tools/call`), if any. */
  readonly tool?: ToolInfo;
  /** The arguments sent. */
  readonly args?: unknown;
  /** A first round (no `requestState`, no `inputResponses`): two of these are identical calls. */
  readonly fresh?: boolean;
}

/** The values a server has handed back in one scan, and which of them this scan created. */
export interface MintedValues {
  /**
   * Remembers every string (and large integer) of a received answer that the scanner did not send
   * first. A value first seen in the answer to a call of a tool that does not only read is one
   * this scan created, unless the same tool hands it out again to a call that did not send it
   * (then it was there before: a listing, an owner's id).
   */
  learn(value: unknown, source?: AnswerSource): void;
  /** Remembers the arguments of a call as ours: an echo of a canary is not minted. */
  sent(args: unknown): void;
  /** The risky parameter of `tool` whose argument is a value the server minted, if any. */
  mintedIntoRisky(tool: ToolInfo | undefined, args: unknown): string | undefined;
  /** The argument of `tool` (its path) that holds a value the server handed out and this scan did not create. */
  notOurs(tool: ToolInfo | undefined, args: unknown): string | undefined;
}

const keyOf = (v: unknown): string | undefined => {
  if (typeof v === 'string')
    return v.length >= MIN_MINTED_LENGTH && v.length <= MAX_MINTED ? v : undefined;
  if (typeof v === 'number' && Number.isInteger(v) && Math.abs(v) >= MIN_MINTED_NUMBER)
    return `#${v}`;
  return undefined;
};

/** Every leaf of a value with its path (bounded). */
function leaves(
  v: unknown,
  path: string[] = [],
  depth = 0,
  out: { path: string[]; value: unknown }[] = [],
): { path: string[]; value: unknown }[] {
  if (depth > 12 || out.length > 2000) return out;
  if (Array.isArray(v)) v.forEach((item, i) => leaves(item, [...path, String(i)], depth + 1, out));
  else if (isRecord(v))
    for (const [k, item] of Object.entries(v)) leaves(item, [...path, k], depth + 1, out);
  else out.push({ path, value: v });
  return out;
}

/**
 * Creates the record. Defence in depth: whatever code picks the arguments, the runner refuses a
 * call that puts a server-minted value into a risky parameter, or a value the scan did not create
 * into a tool that writes.
 */
export function createMintedValues(): MintedValues {
  const ours = new Set<string>();
  const handed = new Set<string>();
  const created = new Map<string, string>();
  const size = (): number => ours.size + handed.size + created.size;
  const walk = (v: unknown, depth: number, visit: (key: string) => void): void => {
    if (depth > 12 || size() >= 3 * MAX_MINTED) return;
    if (typeof v === 'string') {
      const key = keyOf(v);
      if (key !== undefined) visit(key);
      // A text block often carries JSON; its strings are minted values too.
      if (v.startsWith('{') || v.startsWith('[')) {
        try {
          walk(JSON.parse(v), depth + 1, visit);
        } catch {
          // Plain text.
        }
      }
      // Prose hands out codes too ("Your booking BK-7Q2M9X is confirmed"): each token counts.
      if (v.length <= MAX_MINTED && /\s/.test(v))
        for (const token of v.split(/[\s,;:()[\]{}<>"'`]+/)) {
          const key2 = keyOf(token.replace(/[.!?]+$/, ''));
          if (key2 !== undefined && key2 !== key) visit(key2);
        }
    } else if (typeof v === 'number') {
      const key = keyOf(v);
      if (key !== undefined) visit(key);
    } else if (Array.isArray(v)) for (const item of v) walk(item, depth + 1, visit);
    else if (isRecord(v)) for (const item of Object.values(v)) walk(item, depth + 1, visit);
  };
  const sentNow = (args: unknown): Set<string> => {
    const keys = new Set<string>();
    walk(args, 0, (k) => keys.add(k));
    return keys;
  };
  return {
    learn(value, source) {
      const tool = source?.tool;
      const mints = tool !== undefined && !judgeTool(tool).reads;
      const sentHere = sentNow(source?.args);
      // Each value once per answer: the same answer naming it twice is one handing-out.
      const keys = new Set<string>();
      walk(value, 0, (key) => keys.add(key));
      for (const key of keys) {
        if (ours.has(key) || handed.has(key) || sentHere.has(key)) continue;
        const by = created.get(key);
        if (by === undefined) {
          if (mints) created.set(key, tool.name);
          else handed.add(key);
        } else if (source?.fresh === true && tool?.name === by) {
          // The same tool handed it out again: it was there before this scan's call.
          created.delete(key);
          handed.add(key);
        }
      }
    },
    sent(args) {
      walk(args, 0, (key) => {
        if (!handed.has(key) && !created.has(key) && ours.size < MAX_MINTED) ours.add(key);
      });
    },
    mintedIntoRisky(tool, args) {
      if (!isRecord(args)) return undefined;
      const params = paramsOf(tool?.inputSchema);
      for (const { path, value } of leaves(args)) {
        const key = keyOf(value);
        if (key === undefined || !(handed.has(key) || created.has(key))) continue;
        const names = path.filter((p) => !/^\d+$/.test(p));
        const risky = names.some((name, i) => {
          const schema = params.find(
            (p) => p.path.join('\0') === names.slice(0, i + 1).join('\0'),
          )?.schema;
          return isRiskyParameter(name, schema);
        });
        if (risky) return names.join('.');
      }
      return undefined;
    },
    notOurs(tool, args) {
      if (!isRecord(args)) return undefined;
      const own = schemaValues(tool?.inputSchema);
      for (const { path, value } of leaves(args)) {
        const key = keyOf(value);
        if (key === undefined || !handed.has(key) || own.has(String(value))) continue;
        return path.join('.');
      }
      return undefined;
    },
  };
}

/** What the runner needs to decide whether a `tools/call` may be sent. */
export interface CallGate {
  readonly includeDestructive: boolean;
  /** `--allow-minted-in-risky`: let a server-minted value reach a risky parameter. */
  readonly allowMintedInRisky?: boolean;
  readonly minted?: MintedValues;
}

/**
 * Why the runner must not send this `tools/call`, or `undefined` when it may. Probes filter with
 * the same rules; this is the defence in depth that catches a probe (or discovery) bug.
 */
export function callRefusal(
  tool: ToolInfo | undefined,
  name: string,
  args: unknown,
  gate: CallGate,
): string | undefined {
  const judged = judgeTool(tool ?? { name });
  if (!gate.includeDestructive) {
    const risk = riskReason(tool ?? { name });
    if (risk !== undefined) return `'${name}' ${risk} (needs --include-destructive)`;
  }
  const param = gate.allowMintedInRisky ? undefined : gate.minted?.mintedIntoRisky(tool, args);
  if (param !== undefined)
    return `'${name}' would get a value the server minted in its parameter "${param}" (needs --allow-minted-in-risky)`;
  if (judged.writes && (judged.destructive !== undefined || !gate.includeDestructive)) {
    const handedOut = gate.minted?.notOurs(tool, args);
    if (handedOut !== undefined)
      return judged.destructive !== undefined
        ? `'${name}' may destroy data, and "${handedOut}" would hold a value the server handed out that this scan did not create (a destructive tool only ever gets what the scan made)`
        : `'${name}' writes, and "${handedOut}" would hold a value the server handed out that this scan did not create (needs --include-destructive)`;
  }
  gate.minted?.sent(args);
  return undefined;
}
