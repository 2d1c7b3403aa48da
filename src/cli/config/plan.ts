/**
 * From a declared server to what the scan does with it: the target (placeholders substituted, a
 * stdio server's environment built), its headers and identities, the values to redact, or why it
 * is not started at all. Nothing here spawns or connects.
 */
import { readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import type { ExtraSecret } from '../../probe/evidence/evidence.js';
import type { HttpTls, IdentityName, Target, TransportKind } from '../../probe/model/target.js';
import type { ServerSource } from '../../probe/model/report.js';
import { displayTarget } from '../../probe/runner/display-target.js';
import type { ScanConfig } from '../../probe/runner/scan.js';
import type { ConnectionPolicy } from '../../probe/target/http-connection.js';
import { visibleLine } from '../../report/visible.js';
import { RESERVED_HEADERS, type HeaderLine } from '../header-line.js';
import type { ConfigServer } from './formats.js';
import { stdioEnv } from './minimal-env.js';
import {
  inputVariable,
  substitute,
  type ResolvedSecret,
  type SubstitutionContext,
} from './substitute.js';

/** How a report's `problem` starts when the entry was deliberately left alone (exit code 0). */
export const NOT_SCANNED = 'not scanned: ';

/** The scan of one declared server, or why there is none. */
export interface ServerPlan {
  readonly source: ServerSource;
  readonly transport: TransportKind;
  /** Set when the server is scanned. */
  readonly target?: Target;
  /** What the report shows as the target when the server is not scanned. */
  readonly display: string;
  /** Why the server is not scanned; starts with {@link NOT_SCANNED} when that is by design. */
  readonly problem?: string;
  readonly headers: readonly HeaderLine[];
  readonly identities: Partial<Record<IdentityName, string>>;
  /** Values from the environment, an env file or the entry's `env`: redacted in the report. */
  readonly secrets: readonly ExtraSecret[];
  /** Said on stderr before the scan. */
  readonly warnings: readonly string[];
  /** How this server takes its identity, over the flags (a twin in the bench; none from files). */
  readonly carrier?: Pick<ScanConfig, 'identityHeader' | 'identityEnv'>;
}

/** What every plan shares: the scanner's environment and the flags that apply to each server. */
export interface PlanOptions {
  readonly env: NodeJS.ProcessEnv;
  readonly userHome: string;
  /** Identities from `--identity-a/-b` or `STATEGUARD_IDENTITY_A/B`. */
  readonly identities: Partial<Record<IdentityName, string>>;
  /** The header that carries the identities (`--identity-header`), or `authorization`. */
  readonly carrier: string;
  readonly tls?: HttpTls;
  readonly connection?: ConnectionPolicy;
}

/** The per-server identity variable: `STATEGUARD_IDENTITY_A__` + the name, upper-cased, `_` for the rest. */
export function identityVariable(identity: IdentityName, server: string): string {
  return `STATEGUARD_IDENTITY_${identity}__${server.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
}

/** A server's identities: its own {@link identityVariable}s over the flags' (empty ones unset). */
export function serverIdentities(
  server: string,
  options: Pick<PlanOptions, 'env' | 'identities'>,
): Partial<Record<IdentityName, string>> {
  const identities: Partial<Record<IdentityName, string>> = {};
  for (const i of ['A', 'B'] as const) {
    const own = options.env[identityVariable(i, server)];
    const v = own !== undefined && own.length > 0 ? own : options.identities[i];
    if (v !== undefined) identities[i] = v;
  }
  return identities;
}

/** The largest env file read. */
export const MAX_ENV_FILE_BYTES = 1024 * 1024;
/** Values shorter than this are not redacted: `1` or `true` would blank out half the evidence. */
export const MIN_REDACTED = 8;

/** `KEY=value` lines (optional `export `, quotes, `#` comments), as dotenv files write them. */
export function parseEnvFile(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const raw of text.split(/\r?\n/)) {
    const m = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_.-]*)\s*=\s*(.*?)\s*$/.exec(raw);
    if (!m) continue;
    let value = m[2] as string;
    const quoted = /^(["'])(.*)\1$/s.exec(value);
    if (quoted)
      value =
        quoted[1] === '"' ? (quoted[2] as string).replace(/\\n/g, '\n') : (quoted[2] as string);
    else value = value.replace(/\s+#.*$/, '');
    out[m[1] as string] = value;
  }
  return out;
}

/** Substitution over several values, collecting what could not be resolved. */
function substituter(ctx: SubstitutionContext): {
  sub: (s: string) => string;
  unresolved: string[];
  secrets: ResolvedSecret[];
} {
  const unresolved: string[] = [];
  const secrets: ResolvedSecret[] = [];
  return {
    sub: (s) => {
      const r = substitute(s, ctx);
      unresolved.push(...r.unresolved);
      secrets.push(...r.secrets);
      return r.value;
    },
    unresolved,
    secrets,
  };
}

/** What to set for each unresolved placeholder, or why nothing can be set. */
function remedy(placeholder: string): string {
  const body = placeholder.slice(2, -1);
  const name = /^(?:env:)?([A-Za-z_][A-Za-z0-9_]*)(?::-.*)?$/s.exec(body)?.[1];
  if (name !== undefined) return `set ${name} in the scanner's environment`;
  if (body.startsWith('input:') && body.length > 6)
    return `set ${inputVariable(body.slice(6))} in the scanner's environment`;
  return `stateguard does not resolve ${placeholder.length > 40 ? 'this form' : visibleLine(placeholder)}`;
}

function unresolvedProblem(placeholders: readonly string[]): string {
  const unique = [...new Set(placeholders)];
  const fixes = [...new Set(unique.map(remedy))];
  return (
    `unresolved placeholder${unique.length === 1 ? '' : 's'} ${unique.map(visibleLine).join(', ')}: not started ` +
    `(${fixes.join('; ')})`
  );
}

/** What every phase of one server's plan shares: substitution, its identities and what to redact. */
interface PlanContext {
  readonly server: ConfigServer;
  readonly options: PlanOptions;
  /** Substitutes placeholders, collecting what is unresolved and what is secret. */
  readonly sub: (s: string) => string;
  readonly unresolved: readonly string[];
  /** What every plan of this server carries; its identities may still gain A from the entry. */
  readonly base: {
    readonly source: ServerSource;
    readonly identities: Partial<Record<IdentityName, string>>;
    readonly warnings: string[];
  };
  /** The substituted secrets plus `extra`, long enough to redact, as the report's placeholders. */
  readonly redacted: (extra: readonly { name: string; value: string }[]) => ExtraSecret[];
}

type StdioSpec = Extract<ConfigServer['spec'], { kind: 'stdio' }>;
type RemoteSpec = Extract<ConfigServer['spec'], { kind: 'http' | 'sse' }>;

/** Plans the scan of `server`. */
export function planServer(server: ConfigServer, options: PlanOptions): ServerPlan {
  const { spec } = server;
  const plan = planContext(server, options);
  if (spec.kind === 'unsupported')
    return {
      ...plan.base,
      transport: 'http',
      display: `${spec.type}:`,
      problem: `${NOT_SCANNED}transport type '${visibleLine(spec.type)}' is not one the scanner speaks (stdio, http)`,
      headers: [],
      secrets: [],
    };
  if (spec.kind === 'stdio') return planStdio(spec, plan);
  return planRemote(spec, plan);
}

/** The substitution and the server's identities. */
function planContext(server: ConfigServer, options: PlanOptions): PlanContext {
  const { source } = server;
  const ctx: SubstitutionContext = {
    env: options.env,
    userHome: options.userHome,
    workspaceFolder: server.workspaceFolder,
  };
  const { sub, unresolved, secrets } = substituter(ctx);
  const identities = serverIdentities(source.name, options);
  const redacted = (extra: readonly { name: string; value: string }[]): ExtraSecret[] =>
    [...secrets, ...extra]
      .filter((s) => s.value.length >= MIN_REDACTED)
      .map((s) => ({ placeholder: `<env ${s.name}>`, value: s.value }));
  return { server, options, sub, unresolved, base: { source, identities, warnings: [] }, redacted };
}

/** A stdio entry: its command, arguments and working directory, and the environment it starts in. */
function planStdio(spec: StdioSpec, plan: PlanContext): ServerPlan {
  const { sub, server } = plan;
  const command = sub(spec.command);
  const args = spec.args.map(sub);
  const cwdRaw = spec.cwd === undefined ? undefined : sub(spec.cwd);
  const envFileRaw = spec.envFile === undefined ? undefined : sub(spec.envFile);
  const own: Record<string, string | null> = {};
  for (const [k, v] of Object.entries(spec.env)) own[k] = v === null ? null : sub(v);
  const cwd =
    cwdRaw === undefined
      ? server.workspaceFolder
      : isAbsolute(cwdRaw)
        ? cwdRaw
        : resolve(server.workspaceFolder, cwdRaw);
  const display = displayTarget({ kind: 'stdio', command, args });
  const fail = (problem: string): ServerPlan => ({
    ...plan.base,
    transport: 'stdio',
    display,
    problem,
    headers: [],
    secrets: plan.redacted([]),
  });
  if (plan.unresolved.length > 0) return fail(unresolvedProblem(plan.unresolved));
  const fromFile = envFileRaw === undefined ? {} : readEnvFile(envFileRaw, server.workspaceFolder);
  if (typeof fromFile === 'string') return fail(fromFile);
  // The entry's own env wins over its env file, and both over the minimal environment.
  const env = stdioEnv(plan.options.env, { ...fromFile, ...own });
  const declared = [...Object.entries(fromFile), ...Object.entries(own)]
    .filter((e): e is [string, string] => typeof e[1] === 'string')
    .map(([name, value]) => ({ name, value }));
  return {
    ...plan.base,
    transport: 'stdio',
    target: { kind: 'stdio', command, args, env, cwd },
    display,
    headers: [],
    secrets: plan.redacted(declared),
  };
}

/** An entry's `envFile`, relative to the workspace folder: its variables, or why it cannot be used. */
function readEnvFile(name: string, workspaceFolder: string): Record<string, string> | string {
  const file = isAbsolute(name) ? name : resolve(workspaceFolder, name);
  try {
    const text = readFileSync(file);
    if (text.length > MAX_ENV_FILE_BYTES)
      return `its envFile is larger than ${MAX_ENV_FILE_BYTES} bytes: not started`;
    return parseEnvFile(text.toString('utf8'));
  } catch (error) {
    return `its envFile '${visibleLine(name)}' cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'}): not started`;
  }
}

/** An HTTP (or SSE-only) entry: its URL, its headers, and the connection settings of the flags. */
function planRemote(spec: RemoteSpec, plan: PlanContext): ServerPlan {
  const { sub, options } = plan;
  const url = sub(spec.url);
  const headerValues = Object.entries(spec.headers).map(([name, v]) => ({ name, value: sub(v) }));
  const display = displayTarget({ kind: 'http', url });
  const remote = { ...plan.base, transport: 'http' as const, display };
  const fail = (problem: string): ServerPlan => ({
    ...remote,
    problem,
    headers: [],
    secrets: plan.redacted([]),
  });
  if (spec.kind === 'sse')
    return fail(
      `${NOT_SCANNED}an SSE-only entry ("type": "sse", the HTTP+SSE transport of protocol ` +
        '2024-11-05, deprecated since 2025-03-26); the scanner speaks Streamable HTTP. If the ' +
        'server also serves Streamable HTTP, declare that endpoint with "type": "http"',
    );
  if (plan.unresolved.length > 0) return fail(unresolvedProblem(plan.unresolved));
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (parsed === undefined || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:'))
    return fail('its url is not an http(s) URL: not scanned');
  const headers = entryHeaders(headerValues, plan);
  if (typeof headers === 'string') return fail(headers);
  const https = parsed.protocol === 'https:';
  return {
    ...remote,
    target: {
      kind: 'http',
      url: parsed.toString(),
      ...(options.connection ? { connection: options.connection } : {}),
      ...(https && options.tls ? { tls: options.tls } : {}),
    },
    headers,
    secrets: plan.redacted([]),
  };
}

/**
 * The entry's headers that are sent, or why the entry is not scanned. The header that carries the
 * identities is not sent: a bearer token in `Authorization` becomes identity A when none was given
 * for A; the headers the scanner sets itself are not sent either (both with a warning).
 */
function entryHeaders(values: readonly HeaderLine[], plan: PlanContext): HeaderLine[] | string {
  const { identities, warnings, source } = plan.base;
  const headers: HeaderLine[] = [];
  for (const h of values) {
    const lower = h.name.toLowerCase();
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(h.name) || /[\r\n\0]/.test(h.value))
      return `its header '${visibleLine(h.name)}' is not a valid one-line header: not scanned`;
    if (lower === plan.options.carrier) {
      // The entry's own credential is identity A unless an identity was given for A.
      const bearer = /^Bearer\s+(\S+)$/i.exec(h.value)?.[1];
      if (identities.A === undefined && bearer !== undefined && lower === 'authorization')
        identities.A = bearer;
      else
        warnings.push(
          `server '${visibleLine(source.name)}': its ${visibleLine(h.name)} header is not sent; that header carries the identities`,
        );
      continue;
    }
    if (RESERVED_HEADERS.has(lower)) {
      warnings.push(
        `server '${visibleLine(source.name)}': its ${visibleLine(h.name)} header is not sent; the scanner sets it`,
      );
      continue;
    }
    headers.push(h);
  }
  return headers;
}
