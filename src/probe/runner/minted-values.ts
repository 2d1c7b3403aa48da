/**
 * Where each value came from: the values a server has handed back in one scan, and which of them
 * this scan created. The call gate (`call-gate.ts`, point 4) lets a tool that does more than read
 * get only those, never a value the server handed out that the scan did not make, nor one its own
 * schema offers where a parameter names a target.
 */
import { judgeTool } from '../plan/tool-risk.js';
import { isRiskyParameter, paramsOf } from '../plan/slots.js';
import { wordsOf } from '../plan/words.js';
import type { ToolInfo } from '../model/tools.js';
import { isRecord } from '../model/json.js';

// The last word of a parameter that names whose object a call acts on: a value its schema offers
// there is somebody's (a real channel, a real workflow), where a mode (`cabinClass`) is nobody's.
const TARGET_WORDS = new Set(
  (
    'id ids handle ref reference key slug uri url account accounts user users channel channels ' +
    'team teams recipient recipients to cc bcc email emails phone number workflow workflows job ' +
    'jobs pipeline pipelines repo repository project projects org organization workspace queue ' +
    'topic topics destination target targets customer customers member members group groups ' +
    'room rooms chat conversation thread instance instances server servers environment env'
  ).split(' '),
);

/**
 * The values a schema offers itself (enum, const, default, examples), at any depth, in parameters
 * whose name says they name a target (`channel`, `workflow`, `account_id`): for a tool that acts,
 * those are real targets.
 */
function schemaTargets(root: unknown): Set<string> {
  const values = new Set<string>();
  const add = (v: unknown): void => {
    if (typeof v === 'string' || typeof v === 'number') values.add(String(v));
  };
  for (const { path, schema } of paramsOf(root)) {
    const last = wordsOf(path[path.length - 1] ?? '').pop() ?? '';
    if (!TARGET_WORDS.has(last)) continue;
    if (Array.isArray(schema['enum'])) schema['enum'].forEach(add);
    if (Array.isArray(schema['examples'])) schema['examples'].forEach(add);
    add(schema['const']);
    add(schema['default']);
  }
  return values;
}

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
  /**
   * The argument of `tool` (its path) that holds a value this scan did not create: one the server
   * handed out, or one the tool's own schema offers.
   */
  notOurs(tool: ToolInfo | undefined, args: unknown): string | undefined;
  /**
   * What this scan created: each value a tool that does not only read handed out first to one of
   * this scan's calls, with that tool, in the order they were minted.
   */
  created(): { readonly tool: string; readonly value: string }[];
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
 * Every value key in `v` (a string, a number, the JSON a text block carries, each token of prose),
 * told to `visit`, at most 12 levels deep and until the record is `full`.
 */
function walkKeys(
  v: unknown,
  depth: number,
  visit: (key: string) => void,
  full: () => boolean,
): void {
  if (depth > 12 || full()) return;
  if (typeof v === 'string') {
    const key = keyOf(v);
    if (key !== undefined) visit(key);
    // A text block often carries JSON; its strings are minted values too.
    if (v.startsWith('{') || v.startsWith('[')) {
      try {
        walkKeys(JSON.parse(v), depth + 1, visit, full);
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
  } else if (Array.isArray(v)) for (const item of v) walkKeys(item, depth + 1, visit, full);
  else if (isRecord(v)) for (const item of Object.values(v)) walkKeys(item, depth + 1, visit, full);
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
  const full = (): boolean => ours.size + handed.size + created.size >= 3 * MAX_MINTED;
  const walk = (v: unknown, depth: number, visit: (key: string) => void): void =>
    walkKeys(v, depth, visit, full);
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
    created() {
      // A text block that carries the id (`{"noteId":"note-7f3a"}`) is the answer, not the object:
      // only the innermost value the same tool handed out is named. The block is read as `learn`
      // read it (its JSON, its prose tokens), so the cost is the blocks' length, not pairs of values.
      const carriesOwn = (key: string, tool: string): boolean => {
        let found = false;
        walk(key, 0, (inner) => {
          if (inner !== key && created.get(inner) === tool) found = true;
        });
        return found;
      };
      // A large integer is keyed `#123`; the report shows the value as the server sent it.
      return [...created]
        .filter(([key, tool]) => key.startsWith('#') || !carriesOwn(key, tool))
        .map(([key, tool]) => ({ tool, value: key.startsWith('#') ? key.slice(1) : key }));
    },
    notOurs(tool, args) {
      if (!isRecord(args)) return undefined;
      // A value the server handed out, or one the tool's own schema offers where it names a target
      // (a real channel, a real account): for a tool that acts, both are somebody's objects.
      const own = schemaTargets(tool?.inputSchema);
      for (const { path, value } of leaves(args)) {
        const key = keyOf(value);
        if (key === undefined || created.has(key)) continue;
        if (handed.has(key) || own.has(String(value))) return path.join('.');
      }
      return undefined;
    },
  };
}
