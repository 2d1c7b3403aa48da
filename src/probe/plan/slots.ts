/**
 * Dangerous slots: which parameter of a tool takes a command, code, a database query, a URL the
 * server may fetch or a file path, at any depth of its input schema (`$ref`s into `$defs` followed).
 * The call plan reads a tool's slots (`plan/classify.ts`); the call gate keeps server-minted values
 * out of them (`runner/call-gate.ts`).
 */
import { RISKY_PARAMETER, RISKY_PARAMETER_SUFFIXES, RISKY_PHRASES } from './risk-lexicon.js';
import { fold, isUnspaced, wordsOf } from './words.js';
import { isRecord } from '../model/json.js';

/** Identifiers in prose (`delete_document`, `removeItem`) name other tools, not this one's act. */
export const stripIdentifiers = (text: string): string =>
  text.replace(
    /`[^`]*`|\b[\p{L}\p{N}]+(?:_[\p{L}\p{N}]+)+\b|\b\p{Ll}+\p{Lu}[\p{L}\p{N}]*\b/gu,
    ' ',
  );

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
    // Inside an unspaced name as in a spaced one: code only as the whole name (`コード`); after
    // another noun it is an identifier (`商品コード`, product code, as `product_code`).
    if (isUnspaced(w))
      for (const [r, set] of ROLE_WORDS)
        for (const e of set)
          if (isUnspaced(e) && w.includes(e) && (r !== 'code' || w === e)) return r;
  }
  if (joined === 'query' || last === 'query') return 'query';
  return undefined;
}

/** The role a description gives a slot or a tool, if any. */
export function roleOfDescription(text: string): SlotRole | undefined {
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

const MAX_NODES = 400;
const MAX_DEPTH = 10;

/** A parameter at some depth, with the names of its path. */
export interface Param {
  readonly path: readonly string[];
  readonly schema: Record<string, unknown>;
  /**
   * Not in the `required` of the object that holds it (nor of any `allOf`/`anyOf`/`oneOf`/`$ref`
   * part of that object): a call may leave it out.
   */
  readonly optional: boolean;
}

/** The names an object schema requires itself, and in the `allOf` parts it is made of. */
function requiredHere(schema: Record<string, unknown>): string[] {
  const own = Array.isArray(schema['required']) ? schema['required'] : [];
  const parts = Array.isArray(schema['allOf']) ? schema['allOf'] : [];
  return [
    ...own,
    ...parts.flatMap((p) => (isRecord(p) && Array.isArray(p['required']) ? p['required'] : [])),
  ].filter((n): n is string => typeof n === 'string');
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
  // `required`: the names the object at this level requires, from the parts of it already read (a
  // `$ref` or an `allOf`/`anyOf`/`oneOf` part is the same object, and may name its properties).
  const visit = (
    schema: unknown,
    path: readonly string[],
    depth: number,
    refs: readonly string[],
    inherited: readonly string[],
  ): void => {
    if (!isRecord(schema) || depth > MAX_DEPTH || ++nodes > MAX_NODES) return;
    const required = [...inherited, ...requiredHere(schema)];
    const ref = schema['$ref'];
    if (typeof ref === 'string' && !refs.includes(ref))
      visit(resolve(ref), path, depth + 1, [...refs, ref], required);
    if (isRecord(schema['properties']))
      for (const [name, sub] of Object.entries(schema['properties'])) {
        if (!isRecord(sub)) continue;
        out.push({ path: [...path, name], schema: sub, optional: !required.includes(name) });
        visit(sub, [...path, name], depth + 1, refs, []);
      }
    for (const key of ['items', 'additionalProperties', 'contains', 'not'])
      if (isRecord(schema[key])) visit(schema[key], path, depth + 1, refs, []);
    for (const key of ['anyOf', 'oneOf', 'allOf'])
      if (Array.isArray(schema[key]))
        for (const alt of schema[key]) visit(alt, path, depth + 1, refs, required);
    if (Array.isArray(schema['prefixItems']))
      for (const alt of schema['prefixItems']) visit(alt, path, depth + 1, refs, []);
  };
  visit(root, [], 0, [], []);
  return out;
}

/** A parameter that can hold text: no declared type, or one that admits a string. */
export function takesText(schema: Record<string, unknown>): boolean {
  const t = schema['type'];
  if (t === undefined) return !isRecord(schema['items']) && schema['enum'] === undefined;
  return t === 'string' || (Array.isArray(t) && t.includes('string'));
}

/** True when a tool's name, title or description speaks of a database: its `query` is one. */
export const speaksOfDatabase = (text: string): boolean =>
  /\b(sql|database|db|table|tables|datenbank|base de donnees|base de datos)\b/u.test(fold(text));

/** A dangerous slot of a tool: where it is, what it takes, and whether a call may leave it out. */
export interface DangerousSlot {
  readonly path: readonly string[];
  readonly role: SlotRole;
  readonly optional: boolean;
}

/** What a tool declares that says what its slots take. */
export interface SlotOwner {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly inputSchema?: unknown;
  readonly annotations?: unknown;
}

/**
 * Every dangerous slot of a tool at any depth (only a parameter that can hold text can hold a
 * command or a URL). An optional one the scanner never fills (the call gate strips it,
 * `runner/call-gate.ts`), so it cannot do the harm it could; a required one is a sign of harm.
 */
export function dangerousSlots(tool: SlotOwner): DangerousSlot[] {
  const ann = isRecord(tool.annotations) ? tool.annotations : undefined;
  const title = typeof ann?.['title'] === 'string' ? ann['title'] : (tool.title ?? '');
  const description = typeof tool.description === 'string' ? tool.description : '';
  const database = speaksOfDatabase(`${tool.name} ${title} ${description}`);
  const out: DangerousSlot[] = [];
  for (const p of paramsOf(tool.inputSchema)) {
    if (!takesText(p.schema)) continue;
    const role = slotRole(p.path[p.path.length - 1] as string, p.schema, database);
    if (role !== undefined) out.push({ path: p.path, role, optional: p.optional });
  }
  return out;
}
