/**
 * Values from an input schema: type-correct arguments around a canary, the answers to a question's
 * schema, and the parameters that take a handle. Discovery and every experiment build their calls
 * here. Which tools may be called at all is the call plan's (`plan/tool-risk.ts`); an optional
 * dangerous slot stays unset by the plan's reading of it (`plan/slots.ts`).
 */
import { wordsOf } from '../plan/words.js';
import { slotRole } from '../plan/slots.js';
import { isRecord } from '../model/json.js';

type Schema = Record<string, unknown>;

/** The properties and required names of an object schema. */
export function objectShape(schema: unknown): {
  props: Record<string, Schema>;
  required: string[];
} {
  const props: Record<string, Schema> = {};
  if (isRecord(schema) && isRecord(schema['properties'])) {
    for (const [k, v] of Object.entries(schema['properties'])) if (isRecord(v)) props[k] = v;
  }
  const req = isRecord(schema) && Array.isArray(schema['required']) ? schema['required'] : [];
  return { props, required: req.filter((r): r is string => typeof r === 'string') };
}

// The last word of a parameter that names a reference to something minted elsewhere.
const REFERENCE_WORDS = new Set(
  'id ids handle ref reference key token code number no uri url which slug session cursor'.split(
    ' ',
  ),
);

/** Whether a parameter's name (any case convention) says it refers to something: `bookingCode`, `ws_id`. */
export function isReferenceName(name: string): boolean {
  return REFERENCE_WORDS.has(wordsOf(name).pop() ?? '');
}

/** Whether an input property looks like it takes a handle another tool minted. */
export function isHandleProperty(name: string, schema: Schema): boolean {
  const type = schema['type'];
  return (type === undefined || type === 'string') && isReferenceName(name);
}

/** Options of {@link valueFor}. */
export interface ValueOptions {
  /** Put in every free-form string (truncated to `maxLength`). */
  readonly canary: string;
  /**
   * What a boolean without a default or const becomes (true when answering a "yes?" question); when
   * true, an enum also picks its affirmative choice (`yes`, `confirm`, `proceed`, …) if it has one.
   */
  readonly boolean: boolean;
}

/**
 * Values a probe already has, by the path of the property they go in: a top-level property is its
 * name; a nested one its names joined by {@link PATH_SEP} (`lookup` then `bookingCode`).
 */
export type Fill = Readonly<Record<string, unknown>>;
/** Joins the names of a nested property's path in a {@link Fill}. */
export const PATH_SEP = '\u0000';
/** The {@link Fill} key of a property path. */
export const pathKey = (path: readonly string[]): string => path.join(PATH_SEP);

const AFFIRMATIVE = new Set(
  'yes y ok okay accept accepted approve approved confirm confirmed proceed continue allow allowed go true'.split(
    ' ',
  ),
);
/** Whether an enum value reads as "yes" (`Yes`, `confirm`, `PROCEED`). */
const isAffirmative = (v: unknown): boolean =>
  typeof v === 'string' && AFFIRMATIVE.has(v.trim().toLowerCase());

/** The "yes" of an enum or of a titled single-select (`oneOf: [{ const, title }]`), if any. */
function affirmativeChoice(schema: Schema): unknown {
  if (Array.isArray(schema['enum'])) return schema['enum'].find(isAffirmative);
  for (const key of ['oneOf', 'anyOf']) {
    const alts = schema[key];
    if (!Array.isArray(alts)) continue;
    const yes = alts.find((a) => isRecord(a) && 'const' in a && isAffirmative(a['const']));
    if (isRecord(yes)) return yes['const'];
  }
  return undefined;
}

/**
 * A type-correct value for a JSON Schema, planting the canary in free-form strings. With
 * `boolean: true` (answering a question), a choice reads "yes" where the choices allow it.
 */
export function valueFor(
  schema: unknown,
  options: ValueOptions,
  depth = 0,
  fill: Fill = {},
  prefix?: string,
): unknown {
  if (!isRecord(schema) || depth > 8) return options.canary;
  if ('const' in schema) return schema['const'];
  // Answering a question: a choice that reads "yes" wins over the first one and over a default.
  const yes = options.boolean ? affirmativeChoice(schema) : undefined;
  if (yes !== undefined) return yes;
  if ('default' in schema && schema['default'] !== undefined) return schema['default'];
  if (Array.isArray(schema['enum']) && schema['enum'].length > 0) return schema['enum'][0];
  for (const key of ['anyOf', 'oneOf', 'allOf']) {
    const alts = schema[key];
    if (Array.isArray(alts) && alts.length > 0) {
      const pick = alts.find((a) => !(isRecord(a) && a['type'] === 'null')) ?? alts[0];
      return valueFor(pick, options, depth + 1, fill, prefix);
    }
  }
  const rawType = schema['type'];
  const type = Array.isArray(rawType) ? rawType.find((t) => t !== 'null') : rawType;
  switch (type) {
    case 'boolean':
      return options.boolean;
    case 'integer':
    case 'number': {
      const min = typeof schema['minimum'] === 'number' ? schema['minimum'] : undefined;
      const max = typeof schema['maximum'] === 'number' ? schema['maximum'] : undefined;
      let n = min !== undefined ? Math.max(min, 1) : 1;
      if (max !== undefined && n > max) n = max;
      return type === 'integer' ? Math.ceil(n) : n;
    }
    case 'null':
      return null;
    case 'array': {
      const count = typeof schema['minItems'] === 'number' ? Math.max(1, schema['minItems']) : 1;
      return Array.from({ length: Math.min(count, 8) }, () =>
        valueFor(schema['items'], options, depth + 1),
      );
    }
    case 'object':
      return argumentsFor(schema, options, fill, depth + 1, prefix);
    default:
      if (type === undefined && isRecord(schema['properties']))
        return argumentsFor(schema, options, fill, depth + 1, prefix);
      return stringFor(schema, options.canary);
  }
}

function stringFor(schema: Schema, canary: string): string {
  const format = schema['format'];
  let s = canary;
  if (format === 'email') s = `${canary}@example.invalid`;
  else if (format === 'uri' || format === 'url') s = `https://example.invalid/${canary}`;
  else if (format === 'date-time') s = new Date().toISOString();
  else if (format === 'date') s = new Date().toISOString().slice(0, 10);
  else if (format === 'uuid') s = '00000000-0000-4000-8000-000000000000';
  const max = typeof schema['maxLength'] === 'number' ? schema['maxLength'] : undefined;
  return max !== undefined && s.length > max ? s.slice(0, Math.max(1, max)) : s;
}

/**
 * Arguments for an object schema: every required property, plus optional free-form strings (they
 * carry the canary) that are no dangerous slot and any optional object a fill reaches into. `fill` supplies values the probe
 * already has, such as a minted handle, at any depth (see {@link Fill}).
 */
export function argumentsFor(
  schema: unknown,
  options: ValueOptions,
  fill: Fill = {},
  depth = 0,
  prefix?: string,
): Record<string, unknown> {
  const { props, required } = objectShape(schema);
  const out: Record<string, unknown> = {};
  const keyOf = (name: string): string => (prefix === undefined ? name : prefix + PATH_SEP + name);
  const reaches = (key: string): boolean =>
    Object.keys(fill).some((k) => k.startsWith(key + PATH_SEP));
  for (const [name, prop] of Object.entries(props)) {
    const key = keyOf(name);
    if (key in fill) out[name] = fill[key];
    else if (required.includes(name) || reaches(key))
      out[name] = valueFor(prop, options, depth, fill, key);
    else if (
      prop['type'] === 'string' &&
      !('enum' in prop) &&
      !isHandleProperty(name, prop) &&
      // An optional dangerous slot (a path, a URL, a command) stays unset: the call plan counts on it.
      slotRole(name, prop) === undefined
    ) {
      out[name] = valueFor(prop, options, depth);
    }
  }
  for (const name of required) if (!(name in out)) out[name] = fill[keyOf(name)] ?? options.canary;
  return out;
}

/** A string parameter of a tool, at any depth of its object parameters. */
export interface Slot {
  readonly path: readonly string[];
  readonly schema: Schema;
  /** Required at every level of its path. */
  readonly required: boolean;
  /** An integer or number parameter: it takes only numeric ids, sent as numbers. */
  readonly numeric?: true;
}

/** Every string or number parameter of an input schema, nested objects included (depth ≤ 4). */
export function slotsOf(schema: unknown, path: string[] = [], required = true): Slot[] {
  if (path.length > 4) return [];
  const { props, required: req } = objectShape(schema);
  const out: Slot[] = [];
  for (const [name, prop] of Object.entries(props)) {
    const here = [...path, name];
    const isRequired = required && req.includes(name);
    const rawType = prop['type'];
    const type = Array.isArray(rawType) ? rawType.find((t) => t !== 'null') : rawType;
    if (type === 'object' || (type === undefined && isRecord(prop['properties']))) {
      out.push(...slotsOf(prop, here, isRequired));
    } else if (
      (type === 'string' || type === undefined) &&
      !('enum' in prop) &&
      !('const' in prop)
    ) {
      out.push({ path: here, schema: prop, required: isRequired });
    } else if ((type === 'integer' || type === 'number') && !('enum' in prop)) {
      out.push({ path: here, schema: prop, required: isRequired, numeric: true });
    }
  }
  return out;
}
