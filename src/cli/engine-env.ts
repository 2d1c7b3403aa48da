/**
 * cert-x-gen engine mode: `stateguard scan --format cert-x-gen` with `CERT_X_GEN_MODE=engine` takes
 * its target from the variables the engine sets (`CERT_X_GEN_TARGET_*`) and its settings from the
 * ones seed 004's template read (`CXG_MCP_*`). Every value is untrusted input: checked, refused with
 * a one-line reason, and never handed to a shell (command lines are split by `command-line.ts`).
 */
import { accessSync, constants, statSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { ProbeUsageError } from '../errors.js';
import type { Target } from '../probe/model/target.js';
import { splitArguments, splitCommandLine } from './command-line.js';

/** The format that, with `CERT_X_GEN_MODE=engine`, selects engine mode. */
export const ENGINE_FORMAT = 'cert-x-gen';
/** The port an HTTP target gets when the engine names none (the seed template's default). */
export const ENGINE_DEFAULT_PORT = 8000;
/** The MCP endpoint path on an HTTP target when neither the host nor `STATEGUARD_MCP_PATH` names one. */
export const ENGINE_DEFAULT_PATH = '/mcp';

/** What engine mode reads from the environment. */
export interface EngineInput {
  readonly target: Target;
  readonly identities: { readonly A?: string; readonly B?: string };
  readonly principalMetaKey?: string;
  readonly includeDestructive: boolean;
}

/** True when `argv` asks for `--format cert-x-gen` and the engine set `CERT_X_GEN_MODE=engine`. */
export function engineRequested(argv: readonly string[], env: NodeJS.ProcessEnv): boolean {
  if (env.CERT_X_GEN_MODE !== 'engine') return false;
  return argv.some(
    (a, i) =>
      a === `--format=${ENGINE_FORMAT}` || (a === '--format' && argv[i + 1] === ENGINE_FORMAT),
  );
}

// A value the engine (or whoever set the variable) may not smuggle in: controls, NUL, newlines.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

/** `env[name]`, or undefined when unset or empty (as the seed template read them). */
function read(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const v = env[name];
  if (v === undefined || v.length === 0) return undefined;
  if (CONTROL.test(v))
    throw new ProbeUsageError(`${name} must be one line without control characters`);
  return v;
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The command for a server file: run as it is when executable; a script that is not is handed to
 * its interpreter by extension (`.py` to python3, `.js`/`.mjs`/`.cjs` to this Node), as the seed
 * template did for `.py`.
 */
function serverCommand(file: string, args: string[]): { command: string; args: string[] } {
  if (!isExecutable(file)) {
    if (/\.py$/i.test(file)) return { command: 'python3', args: [file, ...args] };
    if (/\.[cm]?js$/i.test(file)) return { command: process.execPath, args: [file, ...args] };
  }
  return { command: file, args };
}

function stdioTarget(file: string, env: NodeJS.ProcessEnv): Target {
  if (file.length === 0)
    throw new ProbeUsageError(
      'CERT_X_GEN_TARGET_HOST cli:// needs the path of the server, e.g. cli:///usr/local/bin/mcp-server',
    );
  const extra = read(env, 'CXG_MCP_STDIO_ARGS');
  const args = extra === undefined ? [] : splitArguments(extra, 'CXG_MCP_STDIO_ARGS');
  return { kind: 'stdio', ...serverCommand(file, args) };
}

function port(env: NodeJS.ProcessEnv): number {
  const raw = read(env, 'CERT_X_GEN_TARGET_PORT');
  if (raw === undefined) return ENGINE_DEFAULT_PORT;
  const n = /^\d{1,5}$/.test(raw) ? Number(raw) : NaN;
  if (!(n >= 1 && n <= 65535))
    throw new ProbeUsageError(`CERT_X_GEN_TARGET_PORT needs a port number (1-65535), got '${raw}'`);
  return n;
}

function httpTarget(host: string, kind: string, env: NodeJS.ProcessEnv): Target {
  const given = read(env, 'CERT_X_GEN_TARGET_PROTOCOL')?.toLowerCase();
  let scheme = given ?? (kind === 'https' ? 'https' : 'http');
  if (scheme !== 'http' && scheme !== 'https')
    throw new ProbeUsageError(
      `CERT_X_GEN_TARGET_PROTOCOL must be http or https for an MCP server (or set CERT_X_GEN_TARGET_KIND=cli for stdio), got '${given ?? ''}'`,
    );
  let rest = host;
  const withScheme = /^(https?):\/\//i.exec(host);
  if (withScheme !== null) {
    scheme = (withScheme[1] ?? scheme).toLowerCase();
    rest = host.slice(withScheme[0].length);
  }
  const slash = rest.indexOf('/');
  const authority = slash === -1 ? rest : rest.slice(0, slash);
  const hostPath = slash === -1 ? '' : rest.slice(slash);
  if (/\s/.test(authority) || authority.length === 0 || /[@?#\\]/.test(authority))
    throw new ProbeUsageError(
      `CERT_X_GEN_TARGET_HOST needs a host name or address (credentials go in CXG_MCP_IDENTITY_A/B), got '${host}'`,
    );
  let url: URL;
  try {
    url = new URL(`${scheme}://${authority}`);
  } catch {
    throw new ProbeUsageError(`CERT_X_GEN_TARGET_HOST is not a host name or address: '${host}'`);
  }
  // A port written in the host wins over CERT_X_GEN_TARGET_PORT, as a URL's own port would.
  if (url.port === '' && !/:\d+$/.test(authority)) url.port = String(port(env));
  const path =
    hostPath.length > 1 ? hostPath : (read(env, 'STATEGUARD_MCP_PATH') ?? ENGINE_DEFAULT_PATH);
  // `//evil.example/x` would name another host: a path here is a path on the target.
  if (!path.startsWith('/') || path.startsWith('//') || /[\s#]/.test(path))
    throw new ProbeUsageError(`the MCP path must start with one '/', got '${path}'`);
  const full = new URL(path, url);
  return { kind: 'http', url: full.toString() };
}

/**
 * The target and settings engine mode reads from `env`. Stdio when `CXG_MCP_STDIO_CMD` is set (the
 * whole command line), or the host begins `cli://`, or `CERT_X_GEN_TARGET_KIND=cli`, or the host
 * names an existing file by absolute path; HTTP otherwise. Throws {@link ProbeUsageError}.
 */
export function engineInput(env: NodeJS.ProcessEnv): EngineInput {
  const cmd = read(env, 'CXG_MCP_STDIO_CMD');
  const host = read(env, 'CERT_X_GEN_TARGET_HOST');
  const kind = (read(env, 'CERT_X_GEN_TARGET_KIND') ?? '').toLowerCase();
  let target: Target;
  if (cmd !== undefined) target = { kind: 'stdio', ...splitCommandLine(cmd, 'CXG_MCP_STDIO_CMD') };
  else if (host === undefined)
    throw new ProbeUsageError('CERT_X_GEN_TARGET_HOST is not set (or set CXG_MCP_STDIO_CMD)');
  else if (host.startsWith('cli://')) target = stdioTarget(host.slice('cli://'.length), env);
  else if (kind === 'cli' || (isAbsolute(host) && isFile(host))) target = stdioTarget(host, env);
  else target = httpTarget(host, kind, env);

  const destructive = read(env, 'CXG_MCP_MRTR_INCLUDE_DESTRUCTIVE');
  if (destructive !== undefined && destructive !== '1' && destructive !== '0')
    throw new ProbeUsageError(
      `CXG_MCP_MRTR_INCLUDE_DESTRUCTIVE takes 1 (call destructive tools) or 0, got '${destructive}'`,
    );
  const a = read(env, 'CXG_MCP_IDENTITY_A');
  const b = read(env, 'CXG_MCP_IDENTITY_B');
  const key = read(env, 'CXG_MCP_PRINCIPAL_META_KEY');
  return {
    target,
    identities: { ...(a === undefined ? {} : { A: a }), ...(b === undefined ? {} : { B: b }) },
    ...(key === undefined ? {} : { principalMetaKey: key }),
    includeDestructive: destructive === '1',
  };
}
