/**
 * From one registry entry (a `server.json`, or a `{ server, _meta }` item of `GET /v0.1/servers`)
 * to a {@link ServerPlan}: what the scan starts, or why it starts nothing. Nothing here spawns or
 * connects, and nothing the registry sent reaches a shell or a file path:
 *
 * - a package runs only with `--run-packages`, and only an npm package with a stdio transport, as
 *   `npx -y -- <identifier>@<version> [package arguments]` (an argv array, no shell), in the
 *   minimal environment every stdio target gets, plus the entry's declared variables;
 * - a remote is connected to only when its host is named by `--allow-remote` (exact match);
 * - a secret (`isSecret`) comes from the `--values` file or a variable named by `--env`, never
 *   from the registry (its `value` or `default` for a secret is ignored);
 * - a deleted or deprecated entry (`_meta` status, namespaced or flat) is not scanned.
 *
 * An entry that cannot be scanned gets a plan whose problem starts with "not scanned: " and says
 * why, naming the flag or value that would change it.
 */
import { tmpdir } from 'node:os';
import type { ExtraSecret } from '../../probe/evidence/evidence.js';
import { createRedactor } from '../../probe/evidence/evidence.js';
import { displayTarget } from '../../probe/runner/display-target.js';
import type { HttpTls, IdentityName } from '../../probe/model/target.js';
import type { ServerSource } from '../../probe/model/report.js';
import type { ConnectionPolicy } from '../../probe/target/http-connection.js';
import { visibleLine } from '../../report/visible.js';
import { RESERVED_HEADERS, type HeaderLine } from '../header-line.js';
import { minimalNames, stdioEnv } from '../config/minimal-env.js';
import { MIN_REDACTED, NOT_SCANNED, serverIdentities, type ServerPlan } from '../config/plan.js';
import {
  firstIssue,
  ServerDetail,
  type RegistryArgument,
  type RegistryInput,
  type RegistryKeyValue,
  type RegistryPackage,
  type RegistryTransport,
} from './schema.js';
import { ENV_NAME } from '../env-name.js';

/** What every entry's plan shares: the flags and the scanner's environment. */
export interface RegistryPlanOptions {
  /** `--run-packages`: npm packages may be installed and run. */
  readonly runPackages: boolean;
  /** `--allow-remote`: the hosts a remote may be on (exact, lower case). */
  readonly allowRemote: readonly string[];
  /** `--include-deprecated`: scan deprecated entries too (never deleted ones). */
  readonly includeDeprecated: boolean;
  /** `--values`: per server name, values by input name. */
  readonly values: Readonly<Record<string, Readonly<Record<string, string>>>>;
  /** `--env`: variables of the scanner's environment an entry may take by name. */
  readonly envNames: readonly string[];
  readonly env: NodeJS.ProcessEnv;
  /** Identities from `--identity-a/-b` or `STATEGUARD_IDENTITY_A/B`. */
  readonly identities: Partial<Record<IdentityName, string>>;
  /** The header that carries the identities (`--identity-header`), or `authorization`. */
  readonly carrier: string;
  readonly tls?: HttpTls;
  readonly connection?: ConnectionPolicy;
}

/** Where an entry came from: the registry URL or the server.json, and its 1-based position. */
export interface EntryPlace {
  readonly file: string;
  readonly index: number;
  readonly format: 'registry' | 'server.json';
}

/** An npm package name, scoped or not, that no shell or npm flag could read as anything else. */
const NPM_NAME = /^(?:@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*$/;
/** An exact version (no range, no tag, no path). */
const EXACT_VERSION = /^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/;
/** A flag a named argument may be. */
const FLAG = /^--?[A-Za-z0-9][A-Za-z0-9_.-]*$/;
/** Variables an entry may not set: they steer npx, npm or Node rather than the server. */
const STEERING = /^(?:NODE_OPTIONS|NODE_PATH|NPM_CONFIG_.*|npm_config_.*|LD_.*|DYLD_.*)$/;

/** `s` cut to `max` characters and made one visible line. */
function shown(s: string, max = 120): string {
  return visibleLine(s.length > max ? `${s.slice(0, max - 1)}…` : s);
}

/** The status an entry's metadata gives, namespaced (`io.modelcontextprotocol.registry/official`) or flat. */
export function registryStatus(item: unknown): { status?: string; message?: string } {
  const record = (v: unknown): Record<string, unknown> | undefined =>
    typeof v === 'object' && v !== null && !Array.isArray(v)
      ? (v as Record<string, unknown>)
      : undefined;
  const outer = record(item);
  const server = record(outer?.server) ?? outer;
  for (const meta of [record(outer?._meta), record(server?._meta), outer, server]) {
    if (meta === undefined) continue;
    const official =
      record(meta['io.modelcontextprotocol.registry/official']) ?? record(meta.official) ?? meta;
    const status = official.status;
    if (typeof status === 'string' && status.length > 0) {
      const message = official.statusMessage;
      return {
        status: status.slice(0, 64),
        ...(typeof message === 'string' ? { message: message.slice(0, 500) } : {}),
      };
    }
  }
  return {};
}

/** A value the user gave for an input of this server: the values file, then a `--env` variable. */
function userValue(name: string, server: string, o: RegistryPlanOptions): string | undefined {
  const own = o.values[server];
  const v = own !== undefined && Object.hasOwn(own, name) ? own[name] : undefined;
  if (v !== undefined) return v;
  return o.envNames.includes(name) ? o.env[name] : undefined;
}

/** Resolving an entry's inputs: what was found, what is missing, and what must be redacted. */
class Inputs {
  readonly missing: string[] = [];
  readonly secrets: ExtraSecret[] = [];
  private readonly server: string;
  private readonly options: RegistryPlanOptions;
  constructor(server: string, options: RegistryPlanOptions) {
    this.server = server;
    this.options = options;
  }

  /** The user's value for `name`, remembered for redaction. */
  private user(name: string): string | undefined {
    const v = userValue(name, this.server, this.options);
    if (v !== undefined && v.length >= MIN_REDACTED)
      this.secrets.push({ placeholder: `<value ${shown(name, 60)}>`, value: v });
    return v;
  }

  /**
   * The value of input `name`: the user's; else, unless it is a secret, the registry's `value`
   * (its `{variables}` filled in) or `default`. Undefined when none; a required one is missing.
   */
  resolve(name: string, input: RegistryInput): string | undefined {
    const given = this.user(name);
    if (given !== undefined) return given;
    if (input.isSecret !== true) {
      const template = input.value ?? input.default;
      if (template !== undefined) {
        const filled = this.fill(template, input.variables ?? {});
        if (filled !== undefined) return filled;
        return undefined;
      }
    }
    if (input.isRequired === true || input.isSecret === true) this.missing.push(name);
    return undefined;
  }

  /** `template` with each `{name}` of `variables` replaced; undefined when one is missing. */
  fill(template: string, variables: Readonly<Record<string, RegistryInput>>): string | undefined {
    let complete = true;
    const out = template.replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (whole, name: string) => {
      const input = Object.hasOwn(variables, name) ? variables[name] : undefined;
      if (input === undefined) return whole;
      const v = this.resolve(name, { ...input, isRequired: true });
      if (v === undefined) complete = false;
      return v ?? whole;
    });
    return complete ? out : undefined;
  }
}

/** Why an option of the entry is not used, or what it becomes. */
type Option =
  | { readonly why: string }
  | {
      readonly target: NonNullable<ServerPlan['target']>;
      readonly headers: HeaderLine[];
      readonly identityA?: string;
      readonly warnings: string[];
    };

/** The arguments of a package, or why they cannot be built. */
function packageArguments(list: readonly RegistryArgument[], inputs: Inputs): string[] | string {
  const argv: string[] = [];
  for (const a of list) {
    const name = a.type === 'named' ? a.name : (a.valueHint ?? a.name);
    if (a.type === 'named' && (a.name === undefined || !FLAG.test(a.name)))
      return `its named argument ${shown(a.name ?? '(no name)', 40)} is not a flag`;
    const value = inputs.resolve(name ?? 'argument', a);
    if (a.type === 'named') {
      if (value === undefined && a.isRequired !== true && a.value === undefined) continue;
      argv.push(a.name as string);
      if (value !== undefined && value !== '') argv.push(value);
    } else if (value !== undefined) argv.push(value);
  }
  return argv;
}

/** The environment a package declares, or why it cannot be set. */
function packageEnv(
  list: readonly RegistryKeyValue[],
  inputs: Inputs,
): Record<string, string> | string {
  const env: Record<string, string> = {};
  const minimal = new Set(minimalNames());
  for (const v of list) {
    if (!ENV_NAME.test(v.name)) return `its variable ${shown(v.name, 40)} is not a variable name`;
    if (minimal.has(v.name) || STEERING.test(v.name))
      return `it sets ${v.name}, which the scanner does not let a registry entry set`;
    const value = inputs.resolve(v.name, v);
    if (value !== undefined) env[v.name] = value;
  }
  return env;
}

/** What an npm stdio package becomes. */
function packageOption(p: RegistryPackage, inputs: Inputs, o: RegistryPlanOptions): Option {
  const label = `${p.registryType} package ${shown(p.identifier, 80)}`;
  if (p.registryType !== 'npm')
    return {
      why: `${label}: the scanner runs npm packages only (registryType ${shown(p.registryType, 20)} is not run)`,
    };
  const transport = p.transport?.type ?? 'stdio';
  if (transport !== 'stdio')
    return { why: `${label}: its transport ${shown(transport, 20)} is not stdio` };
  if (!NPM_NAME.test(p.identifier)) return { why: `${label}: not an npm package name` };
  if (p.version === undefined || !EXACT_VERSION.test(p.version))
    return { why: `${label}: no exact version to install` };
  if (p.runtimeHint !== undefined && p.runtimeHint !== 'npx')
    return { why: `${label}: its runtime ${shown(p.runtimeHint, 20)} is not npx` };
  if (
    p.registryBaseUrl !== undefined &&
    !/^https:\/\/registry\.npmjs\.org\/?$/.test(p.registryBaseUrl)
  )
    return { why: `${label}: it names another npm registry (${shown(p.registryBaseUrl, 80)})` };
  if ((p.runtimeArguments ?? []).some((a) => a.isRequired === true))
    return { why: `${label}: it needs runtime arguments for npx, which the scanner does not pass` };
  if (!o.runPackages) return { why: `${label}: packages run only with --run-packages` };
  const args = packageArguments(p.packageArguments ?? [], inputs);
  if (typeof args === 'string') return { why: `${label}: ${args}` };
  const env = packageEnv(p.environmentVariables ?? [], inputs);
  if (typeof env === 'string') return { why: `${label}: ${env}` };
  if (inputs.missing.length > 0)
    return { why: `missing ${[...new Set(inputs.missing)].join(', ')}` };
  return {
    // `--` ends npx's own options: nothing after it is read as one.
    target: {
      kind: 'stdio',
      command: 'npx',
      args: ['-y', '--', `${p.identifier}@${p.version}`, ...args],
      env: stdioEnv(o.env, env),
      cwd: tmpdir(),
    },
    headers: [],
    warnings: [],
  };
}

/** What a remote becomes. */
function remoteOption(r: RegistryTransport, inputs: Inputs, o: RegistryPlanOptions): Option {
  if (r.url === undefined) return { why: 'a remote without a url' };
  const label = `remote ${shown(r.url, 80)}`;
  if (r.type !== 'streamable-http')
    return {
      why: `${label}: its transport ${shown(r.type, 20)} is not streamable-http (the scanner speaks Streamable HTTP)`,
    };
  const url = inputs.fill(r.url, r.variables ?? {});
  let parsed: URL | undefined;
  try {
    parsed = url === undefined ? undefined : new URL(url);
  } catch {
    parsed = undefined;
  }
  if (url !== undefined && (parsed === undefined || !/^https?:$/.test(parsed.protocol)))
    return { why: `${label}: not an http(s) URL` };
  // A host may be named only once the URL is whole; a missing variable is said below.
  if (parsed !== undefined && !o.allowRemote.includes(parsed.hostname.toLowerCase()))
    return {
      why: `${label}: host ${shown(parsed.hostname, 80)} not allowed (--allow-remote ${shown(parsed.hostname, 80)})`,
    };
  const headers: HeaderLine[] = [];
  const warnings: string[] = [];
  let identityA: string | undefined;
  for (const h of r.headers ?? []) {
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(h.name))
      return { why: `${label}: its header ${shown(h.name, 40)} is not a header name` };
    const value = inputs.resolve(h.name, h);
    if (value === undefined) continue;
    if (/[\r\n\0]/.test(value))
      return { why: `${label}: the value of its header ${h.name} is not one line` };
    const lower = h.name.toLowerCase();
    if (lower === o.carrier) {
      const bearer = /^Bearer\s+(\S+)$/i.exec(value)?.[1];
      if (bearer !== undefined && lower === 'authorization') identityA = bearer;
      else warnings.push(`its ${h.name} header is not sent; that header carries the identities`);
      continue;
    }
    if (RESERVED_HEADERS.has(lower)) {
      warnings.push(`its ${h.name} header is not sent; the scanner sets it`);
      continue;
    }
    headers.push({ name: h.name, value });
  }
  if (inputs.missing.length > 0 || parsed === undefined)
    return { why: `missing ${[...new Set(inputs.missing)].join(', ') || 'a url variable'}` };
  const https = parsed.protocol === 'https:';
  return {
    target: {
      kind: 'http',
      url: parsed.toString(),
      ...(o.connection ? { connection: o.connection } : {}),
      ...(https && o.tls ? { tls: o.tls } : {}),
    },
    headers,
    ...(identityA === undefined ? {} : { identityA }),
    warnings,
  };
}

/** The name an entry is reported under: its own when valid, else a cut, visible form of it. */
function entryName(item: unknown, index: number): string {
  const raw =
    typeof item === 'object' && item !== null
      ? ((item as { server?: { name?: unknown } }).server?.name ??
        (item as { name?: unknown }).name)
      : undefined;
  return typeof raw === 'string' && raw.length > 0 ? shown(raw, 100) : `entry ${index}`;
}

/** Plans the scan of one registry entry. */
export function planEntry(item: unknown, place: EntryPlace, o: RegistryPlanOptions): ServerPlan {
  const wrapped =
    typeof item === 'object' && item !== null && 'server' in item
      ? (item as { server: unknown }).server
      : item;
  const parsed = ServerDetail.safeParse(wrapped);
  const name = parsed.success ? parsed.data.name : entryName(item, place.index);
  const version = parsed.success ? parsed.data.version : undefined;
  const entry: PlannedEntry = {
    name,
    source: {
      name: version === undefined ? name : `${name}@${shown(version, 60)}`,
      file: place.file,
      line: place.index,
      format: place.format,
    },
    identities: serverIdentities(name, o),
  };
  if (!parsed.success)
    return leftAlone(
      entry,
      `the entry is not a valid server.json (${shown(firstIssue(parsed.error), 200)})`,
    );
  const { status, message } = registryStatus(item);
  if (status === 'deleted' || (status === 'deprecated' && !o.includeDeprecated))
    return leftAlone(
      entry,
      `its registry status is ${status}${message === undefined ? '' : ` (${shown(message, 160)})`}` +
        (status === 'deprecated' ? '; --include-deprecated scans it' : ''),
    );
  return planOptions(parsed.data, entry, o);
}

/** What every plan of an entry carries: the name it is reported under, and its identities. */
interface PlannedEntry {
  readonly name: string;
  readonly source: ServerSource;
  readonly identities: Partial<Record<IdentityName, string>>;
}

/** An entry deliberately not scanned, and why. */
function leftAlone(
  entry: PlannedEntry,
  why: string,
  display = `registry:${entry.name}`,
  transport: ServerPlan['transport'] = 'stdio',
): ServerPlan {
  return {
    source: entry.source,
    transport,
    display,
    problem: `${NOT_SCANNED}${why}`,
    headers: [],
    identities: entry.identities,
    secrets: [],
    warnings: [],
  };
}

/**
 * The first of the entry's remotes, then packages, that the scan can use; when none can, the entry
 * is left alone with every option's reason.
 */
function planOptions(
  server: ServerDetail,
  entry: PlannedEntry,
  o: RegistryPlanOptions,
): ServerPlan {
  const { name, identities } = entry;
  const remotes = server.remotes ?? [];
  const packages = server.packages ?? [];
  if (remotes.length === 0 && packages.length === 0)
    return leftAlone(entry, 'it declares no package and no remote');
  const reasons: string[] = [];
  // Each option resolves its own inputs: a value one needs is not "missing" for another.
  for (const make of [
    ...remotes.map((r) => (inputs: Inputs) => remoteOption(r, inputs, o)),
    ...packages.map((p) => (inputs: Inputs) => packageOption(p, inputs, o)),
  ]) {
    const inputs = new Inputs(name, o);
    const option = make(inputs);
    if ('why' in option) {
      reasons.push(option.why);
      continue;
    }
    const ids = { ...identities };
    if (ids.A === undefined && option.identityA !== undefined) ids.A = option.identityA;
    const secrets = inputs.secrets;
    const redactor = createRedactor(ids, secrets);
    return {
      source: entry.source,
      transport: option.target.kind,
      target: option.target,
      display: displayTarget(option.target, redactor),
      headers: option.headers,
      identities: ids,
      secrets,
      warnings: option.warnings.map((w) => `server '${name}': ${w}`),
    };
  }
  const first =
    packages[0] !== undefined
      ? `${packages[0].registryType}:${packages[0].identifier}`
      : (remotes[0]?.url ?? name);
  return leftAlone(
    entry,
    [...new Set(reasons)].join('; '),
    shown(first, 200),
    packages.length === 0 ? 'http' : 'stdio',
  );
}
