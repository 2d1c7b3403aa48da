/**
 * The client capabilities the scanner declares, per era, and the ones it can honour when a server
 * asks for them with `-32021 Missing required client capability`.
 *
 * What is declared is what is answered: every input request of a multi-round flow is answered in
 * `answers.ts` (a form elicitation with values of the asked types, `sampling/createMessage` with a
 * fixed assistant text, `roots/list` with no roots). The Tasks extension is honourable too (the
 * task trial polls `tasks/get` and answers `tasks/update`), but it is declared only when a server
 * requires it: declared up front, a server would answer every call with a task.
 *
 * A legacy (2025-11-25) session pushes real server→client requests, which the scanner refuses, so
 * it declares only what it always did there.
 *
 * Spec: https://modelcontextprotocol.io/specification/2026-07-28/basic (MissingRequiredClientCapability)
 */
import { isRecord } from '../model/json.js';

/** The JSON-RPC code of a missing client capability. */
export const MISSING_CAPABILITY = -32021;

const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** What a modern request declares in `io.modelcontextprotocol/clientCapabilities`. */
export const MODERN_CAPABILITIES: Readonly<Record<string, unknown>> = {
  elicitation: { form: {} },
  sampling: {},
  roots: {},
};

/** What a legacy `initialize` declares. */
export const LEGACY_CAPABILITIES: Readonly<Record<string, unknown>> = { elicitation: {} };

/**
 * Every capability the scanner can honour, to two levels: a capability, then its parts. A part
 * deeper than that is a setting of an honoured part (`form.applyDefaults`) and is honoured with it.
 */
const HONOURABLE: Readonly<Record<string, readonly string[]>> = {
  elicitation: ['form', 'url'],
  sampling: ['context', 'tools'],
  roots: ['listChanged'],
  extensions: [TASKS_EXTENSION],
};

// A hostile `requiredCapabilities` is bounded: so many names, each so long, are read at most.
const MAX_NAMES = 16;
const MAX_NAME = 80;

/** What a `-32021` asks for: its `data.requiredCapabilities`, when it is an object. */
export function requiredOf(outcome: {
  kind: string;
  code?: number;
  data?: unknown;
}): Record<string, unknown> | undefined {
  if (outcome.kind !== 'error' || outcome.code !== MISSING_CAPABILITY) return undefined;
  const data = outcome.data;
  const required = isRecord(data) ? data['requiredCapabilities'] : undefined;
  return isRecord(required) ? required : undefined;
}

const named = (s: string): string =>
  s.length > MAX_NAME ? `${JSON.stringify(s.slice(0, MAX_NAME))}…` : JSON.stringify(s).slice(1, -1);

/**
 * The capabilities in `required` the scanner cannot honour, each by its path
 * (`experimental.acme/telepathy`, `extensions.io.example/ui`). Empty when every one can be.
 * A `requiredCapabilities` that names nothing is itself unhonourable: nothing to declare.
 */
export function unhonourable(required: Record<string, unknown>): string[] {
  const out: string[] = [];
  const keys = Object.keys(required);
  if (keys.length === 0) return ['(an empty requiredCapabilities)'];
  for (const key of keys.slice(0, MAX_NAMES)) {
    const parts = HONOURABLE[key];
    const value = required[key];
    if (parts === undefined) {
      const inner = isRecord(value) ? Object.keys(value).slice(0, MAX_NAMES) : [];
      if (inner.length === 0) out.push(named(key));
      else for (const part of inner) out.push(`${named(key)}.${named(part)}`);
      continue;
    }
    if (!isRecord(value)) {
      if (key === 'extensions') out.push(named(key));
      continue;
    }
    for (const part of Object.keys(value).slice(0, MAX_NAMES))
      if (!parts.includes(part)) out.push(`${named(key)}.${named(part)}`);
    if (key === 'extensions' && Object.keys(value).length === 0) out.push(named(key));
  }
  if (keys.length > MAX_NAMES) out.push(`${keys.length - MAX_NAMES} more`);
  return out;
}

/**
 * `declared` with the honourable capabilities and parts of `required` added, each part as `{}`
 * (or `true` when asked as a flag): only the names known here are ever copied from a server.
 */
export function withRequired(
  declared: Readonly<Record<string, unknown>>,
  required: Record<string, unknown>,
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...declared };
  for (const [key, parts] of Object.entries(HONOURABLE)) {
    const asked = required[key];
    if (asked === undefined) continue;
    const mine = isRecord(out[key]) ? { ...out[key] } : {};
    if (isRecord(asked))
      for (const part of parts)
        if (part in asked) mine[part] = asked[part] === true ? true : (mine[part] ?? {});
    out[key] = mine;
  }
  return out;
}

/** Whether `declared` already holds every capability and part `required` names. */
export function alreadyDeclared(
  declared: Readonly<Record<string, unknown>>,
  required: Record<string, unknown>,
): boolean {
  return Object.entries(required).every(([key, asked]) => {
    const mine = declared[key];
    if (!isRecord(mine)) return false;
    return !isRecord(asked) || Object.keys(asked).every((part) => mine[part] !== undefined);
  });
}

/** A short, bounded list of the capabilities a `required` names, for evidence and reasons. */
export function describeRequired(required: Record<string, unknown>): string {
  const names: string[] = [];
  for (const key of Object.keys(required).slice(0, MAX_NAMES)) {
    const value = required[key];
    const parts = isRecord(value) ? Object.keys(value).slice(0, MAX_NAMES) : [];
    if (parts.length === 0) names.push(named(key));
    else for (const part of parts) names.push(`${named(key)}.${named(part)}`);
  }
  return names.join(', ');
}
