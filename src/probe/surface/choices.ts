/**
 * The other values an argument's schema offers. Discovery sends each argument one value (an enum's
 * first, a boolean's `false`), so a tool that asks for input only for `priority: "urgent"` or
 * `mode: "confirm"` would never be seen to. For a tool that does not write, the survey also tries
 * the values the schema itself lists (`enum`, `oneOf`/`anyOf` of `const`s, `examples`, a boolean
 * both ways), one change at a time against the placeholder call, the parameter with fewest values
 * first, a few calls at most. Nothing here is the server's choice: every value tried is one its
 * own schema declares, and a target's schema is bounded before it is read.
 */
import type { ToolInfo } from '../model/tools.js';
import type { Choice } from '../model/surface-map.js';
import { byDefault } from '../plan/tool-risk.js';
import { argumentsFor, objectShape, pathKey, type Fill } from '../driver/schema.js';

/** Most other values tried per tool (each one call). */
export const MAX_CHOICE_TRIES = 3;
/** Most values read from one parameter's schema; a longer list is cut there. */
const MAX_VALUES = 16;
const MAX_VALUE_CHARS = 200;
const MAX_DEPTH = 4;

/** `priority: "urgent"`, `options.confirm: true`: how a report names a choice. */
export const choiceName = (c: Choice): string => `${c.path.join('.')}: ${JSON.stringify(c.value)}`;

/** The fill that puts `choice` into a tool's arguments (see `schema.ts`, {@link Fill}). */
export const choiceFill = (choice: Choice | undefined): Fill =>
  choice === undefined ? {} : { [pathKey(choice.path)]: choice.value };

/**
 * Whether the survey must not vary `tool`'s arguments: it writes, reaches outside, destroys, or its
 * class is unknown (the call plan's `read` and `create` tools may be varied; a writer is never
 * handed values its schema offers, which for it are real targets).
 */
export function surveyMayWrite(tool: ToolInfo): boolean {
  return !byDefault(tool);
}

type Schema = Record<string, unknown>;
const isRecord = (v: unknown): v is Schema =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const isChoiceValue = (v: unknown): v is Choice['value'] =>
  (typeof v === 'string' && v.length <= MAX_VALUE_CHARS) ||
  (typeof v === 'number' && Number.isFinite(v)) ||
  typeof v === 'boolean';

const typeOf = (s: Schema): unknown =>
  Array.isArray(s['type']) ? (s['type'] as unknown[]).find((t) => t !== 'null') : s['type'];

/** The values one parameter's schema offers, in its own order (empty: a free value). */
export function valuesOffered(schema: Schema): Choice['value'][] {
  const listed: unknown[] = [];
  if (Array.isArray(schema['enum'])) listed.push(...schema['enum']);
  for (const key of ['oneOf', 'anyOf']) {
    const alts = schema[key];
    if (!Array.isArray(alts) || listed.length > 0) continue;
    const real = alts.filter((a) => !(isRecord(a) && a['type'] === 'null'));
    // A union of constants is a choice; a union of shapes is not one this reads.
    if (real.length > 0 && real.every((a) => isRecord(a) && 'const' in a))
      listed.push(...real.map((a) => (a as Schema)['const']));
  }
  if (listed.length === 0 && typeOf(schema) === 'boolean') listed.push(true, false);
  if (listed.length === 0 && Array.isArray(schema['examples'])) listed.push(...schema['examples']);
  const out: Choice['value'][] = [];
  for (const v of listed.slice(0, MAX_VALUES))
    if (isChoiceValue(v) && !out.includes(v)) out.push(v);
  return out;
}

/** A parameter that offers values, at any depth of object parameters. */
interface Offering {
  readonly path: readonly string[];
  readonly values: readonly Choice['value'][];
  readonly fallback?: unknown;
}

function offerings(schema: unknown, path: readonly string[] = []): Offering[] {
  if (path.length >= MAX_DEPTH) return [];
  const out: Offering[] = [];
  for (const [name, prop] of Object.entries(objectShape(schema).props)) {
    const here = [...path, name];
    if (typeOf(prop) === 'object' || (prop['type'] === undefined && isRecord(prop['properties']))) {
      out.push(...offerings(prop, here));
      continue;
    }
    // A constant is one value: nothing to vary.
    if ('const' in prop) continue;
    const values = valuesOffered(prop);
    if (values.length > 0) out.push({ path: here, values, fallback: prop['default'] });
  }
  return out;
}

/** The value at `path` of built arguments, if they hold one. */
function valueAt(args: unknown, path: readonly string[]): unknown {
  let v: unknown = args;
  for (const step of path) v = isRecord(v) ? v[step] : undefined;
  return v;
}

/**
 * The choices to try on `tool`, each one value other than what its placeholder call sends there
 * (or, for a parameter it leaves out, than its declared default): the parameter with fewest values
 * first, a boolean's `true` before its `false`, at most {@link MAX_CHOICE_TRIES}. None for a tool
 * that may write ({@link surveyMayWrite}).
 */
export function choicesFor(tool: ToolInfo, max = MAX_CHOICE_TRIES): Choice[] {
  if (surveyMayWrite(tool)) return [];
  const sent = argumentsFor(tool.inputSchema, { canary: '', boolean: false });
  const params = offerings(tool.inputSchema).sort((a, b) => a.values.length - b.values.length);
  const out: Choice[] = [];
  for (const p of params) {
    const held = valueAt(sent, p.path);
    const current = held === undefined ? p.fallback : held;
    for (const value of p.values) {
      if (out.length >= max) return out;
      if (value === current) continue;
      // A boolean left out reads as false almost everywhere: `true` is the change.
      if (current === undefined && value === false) continue;
      out.push({ path: p.path, value });
    }
  }
  return out;
}
