/**
 * Variable substitution in MCP client configuration files, the union of what the clients document:
 * `${env:NAME}` (VS Code, Cursor, Windsurf), `${NAME}` and `${NAME:-default}` (Claude Code),
 * `${input:id}` (VS Code), and the predefined `${workspaceFolder}`, `${workspaceFolderBasename}`,
 * `${userHome}`, `${pathSeparator}` and `${/}` (VS Code, Cursor).
 *
 * Environment variables come from the scanner's environment, `${input:id}` from
 * `STATEGUARD_INPUT_<ID>` (there is no one to prompt in CI). Whatever cannot be resolved (an unset
 * variable, an input nobody supplied, `${file:…}`, `${command:…}`, a nested or unclosed placeholder)
 * is named in `unresolved` and the value must not be used: a server started with a literal
 * `${API_KEY}` would be scanned as something it never is.
 */
import { sep } from 'node:path';
import { ENV_NAME } from '../env-name.js';

/** What the placeholders of one file resolve against. */
export interface SubstitutionContext {
  /** The scanner's environment. */
  readonly env: NodeJS.ProcessEnv;
  readonly userHome: string;
  /** The project folder of the file (see config/formats.ts), or the current directory. */
  readonly workspaceFolder: string;
}

/** A value taken from the environment, to be redacted wherever it shows up. */
export interface ResolvedSecret {
  readonly name: string;
  readonly value: string;
}

/** A substituted string, what could not be resolved, and the environment values it took in. */
export interface Substituted {
  readonly value: string;
  readonly unresolved: string[];
  readonly secrets: ResolvedSecret[];
}

/** A placeholder is quoted in messages, never at any length: a hostile file could make it huge. */
const MAX_SHOWN = 80;

/** The environment variable that supplies `${input:id}`: `STATEGUARD_INPUT_` + id, upper-cased, `_` for the rest. */
export function inputVariable(id: string): string {
  return `STATEGUARD_INPUT_${id.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
}

function shown(placeholder: string): string {
  return placeholder.length > MAX_SHOWN ? `${placeholder.slice(0, MAX_SHOWN - 2)}…}` : placeholder;
}

function predefined(name: string, ctx: SubstitutionContext): string | undefined {
  switch (name) {
    case 'workspaceFolder':
      return ctx.workspaceFolder;
    case 'workspaceFolderBasename':
      return ctx.workspaceFolder.split(/[\\/]/).filter(Boolean).pop() ?? '';
    case 'userHome':
      return ctx.userHome;
    case 'pathSeparator':
    case '/':
      return sep;
    default:
      return undefined;
  }
}

/** One placeholder's body (between `${` and `}`) resolved, or undefined. */
function resolve(
  body: string,
  ctx: SubstitutionContext,
  secrets: ResolvedSecret[],
): string | undefined {
  const fromEnv = (name: string): string | undefined => {
    const value = ctx.env[name];
    if (value !== undefined) secrets.push({ name, value });
    return value;
  };
  const fixed = predefined(body, ctx);
  if (fixed !== undefined) return fixed;
  if (body.startsWith('env:')) {
    const name = body.slice(4);
    return ENV_NAME.test(name) ? fromEnv(name) : undefined;
  }
  if (body.startsWith('input:')) {
    const id = body.slice(6);
    return id.length > 0 ? fromEnv(inputVariable(id)) : undefined;
  }
  if (ENV_NAME.test(body)) return fromEnv(body);
  const fallback = /^([A-Za-z_][A-Za-z0-9_]*):-(.*)$/s.exec(body);
  if (fallback) {
    // As the shell does: the default stands in for an unset or empty variable.
    const value = ctx.env[fallback[1] as string];
    if (value !== undefined && value !== '') {
      secrets.push({ name: fallback[1] as string, value });
      return value;
    }
    return fallback[2];
  }
  return undefined;
}

/** Substitutes every placeholder of `text`. */
export function substitute(text: string, ctx: SubstitutionContext): Substituted {
  const unresolved: string[] = [];
  const secrets: ResolvedSecret[] = [];
  let out = '';
  let at = 0;
  for (;;) {
    const start = text.indexOf('${', at);
    if (start < 0) break;
    out += text.slice(at, start);
    const end = text.indexOf('}', start + 2);
    const inner = text.indexOf('${', start + 2);
    if (end < 0 || (inner >= 0 && inner < end)) {
      // Unclosed, or nested (`${A:-${B}}`): no client agrees on these; never pass them on.
      const stop = end < 0 ? text.length : text.indexOf('}', end + 1) + 1 || text.length;
      unresolved.push(shown(text.slice(start, stop)));
      out += text.slice(start, stop);
      at = stop;
      continue;
    }
    const placeholder = text.slice(start, end + 1);
    const value = resolve(text.slice(start + 2, end), ctx, secrets);
    if (value === undefined) unresolved.push(shown(placeholder));
    out += value ?? placeholder;
    at = end + 1;
  }
  out += text.slice(at);
  return { value: out, unresolved, secrets };
}
