/**
 * The GitHub Action's inputs, read from the environment the way action.yml passes them
 * (`INPUT_<NAME>`, with `-` as `_`), checked, and turned into `stateguard scan` arguments. Nothing
 * here runs anything; a bad input is an {@link ActionInputError} (the step then fails with exit 2).
 */
import { existsSync, realpathSync } from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';
import { splitCommandLine } from '../cli/command-line.js';
import { parseDuration } from '../cli/duration.js';
import { EVIDENCE_MODES, type EvidenceMode } from '../report/types.js';

/** When the step fails: on a confirmed finding, on that or an errored probe, or never. */
export const FAIL_ON = ['confirmed', 'errored', 'never'] as const;
export type FailOn = (typeof FAIL_ON)[number];

/** What the scan may call: the call plan's default, everything, or `auto` (see {@link surfaceOf}). */
export const SURFACES = ['auto', 'default', 'full'] as const;
export type Surface = (typeof SURFACES)[number];

/** A bad input: the message names it and what to write instead. */
export class ActionInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ActionInputError';
  }
}

/** The checked inputs. */
export interface ActionInputs {
  /** `--http <url>` or `--stdio "<command line>"`; absent with `config`. */
  readonly target?: { readonly flag: '--http' | '--stdio'; readonly value: string };
  /** `--config <file>`, each. */
  readonly configs: readonly string[];
  readonly servers: readonly string[];
  readonly concurrency?: string;
  readonly identityA?: string;
  readonly identityB?: string;
  readonly probes: readonly string[];
  /** `--allow-tool <name>`, each. */
  readonly allowTools: readonly string[];
  /**
   * `full`: the scan is given `--include-destructive`; `default`: only the plan's read and create
   * tools and `allow-tool`. Resolved from `surface: auto` by {@link surfaceOf}.
   */
  readonly surface: { readonly full: boolean; readonly why: string };
  readonly baseline?: string;
  readonly failOn: FailOn;
  /** `--sarif-location`, applied when the report is rendered. */
  readonly sarifLocation?: string;
  /** Further `stateguard scan` flags, split like a shell would (less the rendering ones below). */
  readonly args: readonly string[];
  /** `--all` and `--evidence` among `args`: they shape the SARIF and Markdown the action renders. */
  readonly render: { readonly all: boolean; readonly evidence: EvidenceMode };
  /** `start`: a server the step starts before the scan, waits for, and stops after it. */
  readonly start?: StartInputs;
}

/** The `start`, `wait-for` and `wait-timeout` inputs. */
export interface StartInputs {
  /** The command line, run by `bash -c` in the workspace (the job's own, as a `run:` step's). */
  readonly command: string;
  /** Where the server listens: the scan starts once a TCP connection there succeeds. */
  readonly host: string;
  readonly port: number;
  /** The longest wait for that connection (`wait-timeout`, default 60 s). */
  readonly timeoutMs: number;
}

/** The default `wait-timeout`. */
export const DEFAULT_WAIT_MS = 60_000;

/** `host:port`, `[v6]:port` or an http(s) URL (its port, else 80/443), or an input error. */
function endpointOf(name: string, value: string): { host: string; port: number } {
  if (/^https?:\/\//i.test(value)) {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      throw new ActionInputError(`${name}: '${value}' is not a URL`);
    }
    const port = url.port !== '' ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
    return { host: url.hostname.replace(/^\[|\]$/g, ''), port };
  }
  const m = /^(?:\[([^\]]+)\]|([^:]+)):(\d{1,5})$/.exec(value);
  const port = Number(m?.[3]);
  if (m === null || port < 1 || port > 65535)
    throw new ActionInputError(
      `${name}: '${value}' is not host:port or an http(s) URL, e.g. 127.0.0.1:3000`,
    );
  return { host: m[1] ?? m[2] ?? '', port };
}

/** The server to start, from `start`, `wait-for` (default: the target URL) and `wait-timeout`. */
function startOf(env: NodeJS.ProcessEnv, target: string | undefined): StartInputs | undefined {
  const command = input(env, 'start');
  const waitFor = input(env, 'wait-for');
  const waitTimeout = input(env, 'wait-timeout');
  if (command === undefined) {
    if (waitFor !== undefined || waitTimeout !== undefined)
      throw new ActionInputError('wait-for and wait-timeout need start (the command to run)');
    return undefined;
  }
  const where =
    waitFor ?? (target !== undefined && /^https?:\/\//i.test(target) ? target : undefined);
  if (where === undefined)
    throw new ActionInputError(
      'start: give wait-for (host:port), or a target URL whose port the server listens on',
    );
  let timeoutMs = DEFAULT_WAIT_MS;
  if (waitTimeout !== undefined) {
    try {
      timeoutMs = parseDuration('wait-timeout', waitTimeout);
    } catch (error) {
      throw new ActionInputError((error as Error).message.replace(/^--/, ''));
    }
  }
  return {
    command,
    ...endpointOf(waitFor !== undefined ? 'wait-for' : 'target', where),
    timeoutMs,
  };
}

const input = (env: NodeJS.ProcessEnv, name: string): string | undefined => {
  const value = env[`INPUT_${name.toUpperCase().replace(/-/g, '_')}`]?.trim();
  return value === undefined || value === '' ? undefined : value;
};

/** A list input: items separated by newlines, commas or spaces. */
const list = (env: NodeJS.ProcessEnv, name: string): string[] =>
  (input(env, name) ?? '').split(/[\s,]+/).filter((s) => s !== '');

/** Flags the action sets itself: given in `args`, they would fight its own. */
const OWN_FLAGS = new Set(['--format', '--output', '--http', '--stdio', '--config']);

/**
 * `target`: an `http://` or `https://` URL is scanned with `--http`; anything else is a command
 * line for `--stdio` (a leading `stdio:`, as reports display targets, is dropped).
 */
function targetOf(value: string): NonNullable<ActionInputs['target']> {
  if (/^https?:\/\//i.test(value)) return { flag: '--http', value };
  const command = value.replace(/^stdio:\s*/i, '');
  if (command === '') throw new ActionInputError('target: stdio: needs a command line');
  return { flag: '--stdio', value: command };
}

/** The inputs of this step, from its environment. */
export function readInputs(env: NodeJS.ProcessEnv): ActionInputs {
  const target = input(env, 'target');
  const configs = list(env, 'config');
  if (target === undefined && configs.length === 0)
    throw new ActionInputError(
      'give target (an http(s) URL or a command line) or config (client configuration files)',
    );
  if (target !== undefined && configs.length > 0)
    throw new ActionInputError('give either target or config, not both');
  const failOn = input(env, 'fail-on') ?? 'confirmed';
  if (!(FAIL_ON as readonly string[]).includes(failOn))
    throw new ActionInputError(`fail-on: '${failOn}' is not one of ${FAIL_ON.join(', ')}`);
  let args: string[] = [];
  const extra = input(env, 'args');
  if (extra !== undefined) {
    try {
      const { command, args: rest } = splitCommandLine(extra);
      args = [command, ...rest];
    } catch (error) {
      throw new ActionInputError(`args: ${(error as Error).message}`);
    }
  }
  const own = args.find((a) => OWN_FLAGS.has(a.split('=')[0] ?? a));
  if (own !== undefined)
    throw new ActionInputError(`args: ${own} is set by the action; use its input instead`);
  const render = renderFlags(args);
  const start = startOf(env, target);
  const pick = <K extends string>(key: K, value: string | undefined) =>
    (value === undefined ? {} : { [key]: value }) as Partial<Record<K, string>>;
  return {
    ...(target !== undefined ? { target: targetOf(target) } : {}),
    configs,
    servers: list(env, 'server'),
    ...pick('concurrency', input(env, 'concurrency')),
    // Secrets keep their exact value: no trimming.
    ...pick('identityA', env.INPUT_IDENTITY_A || undefined),
    ...pick('identityB', env.INPUT_IDENTITY_B || undefined),
    probes: list(env, 'probes'),
    allowTools: list(env, 'allow-tool'),
    surface: surfaceOf(
      input(env, 'surface') ?? 'auto',
      target === undefined ? undefined : targetOf(target),
      env.GITHUB_WORKSPACE || process.cwd(),
      args,
    ),
    ...pick('baseline', input(env, 'baseline')),
    failOn: failOn as FailOn,
    ...pick('sarifLocation', input(env, 'sarif-location')),
    args: render.rest,
    render: { all: render.all, evidence: render.evidence },
    ...(start !== undefined ? { start } : {}),
  };
}

/** `--all` and `--evidence <mode>` taken out of `args`; the scan itself writes JSON, unaffected. */
function renderFlags(args: readonly string[]): {
  all: boolean;
  evidence: EvidenceMode;
  rest: string[];
} {
  let all = false;
  let evidence: string = 'summary';
  const rest: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    if (arg === '--all') all = true;
    else if (arg === '--evidence') evidence = args[++i] ?? '';
    else if (arg.startsWith('--evidence=')) evidence = arg.slice('--evidence='.length);
    else rest.push(arg);
  }
  if (!(EVIDENCE_MODES as readonly string[]).includes(evidence))
    throw new ActionInputError(
      `args: --evidence '${evidence}' is not one of ${EVIDENCE_MODES.join(', ')}`,
    );
  return { all, evidence: evidence as EvidenceMode, rest };
}

/**
 * The `stateguard scan` arguments of these inputs, writing the canonical JSON report to
 * `reportFile` (SARIF and Markdown are rendered from it). Identities are not among them: they go
 * to the scanner through its environment, out of every process listing and log.
 */
export function scanArgv(inputs: ActionInputs, reportFile: string): string[] {
  const argv = ['scan'];
  if (inputs.target !== undefined) argv.push(inputs.target.flag, inputs.target.value);
  for (const config of inputs.configs) argv.push('--config', config);
  for (const server of inputs.servers) argv.push('--server', server);
  if (inputs.concurrency !== undefined) argv.push('--concurrency', inputs.concurrency);
  for (const probe of inputs.probes) argv.push('--probe', probe);
  for (const name of inputs.allowTools) argv.push('--allow-tool', name);
  if (inputs.surface.full && !inputs.args.includes('--include-destructive'))
    argv.push('--include-destructive');
  if (inputs.baseline !== undefined) argv.push('--baseline', inputs.baseline);
  argv.push(...inputs.args, '--format', 'json', '--output', reportFile);
  return argv;
}

/**
 * Whether this step scans the whole surface. `auto` does when the action starts the server itself
 * from the repository: a `stdio` target whose program or script is a file inside the workspace is
 * an instance of this job's own, gone when the step ends, so calling every tool harms nothing
 * anyone else has. A package fetched by `npx`/`uvx`, a binary off the `PATH`, a URL or a client
 * configuration may reach a real account: those get the call plan's default.
 */
export function surfaceOf(
  value: string,
  target: ActionInputs['target'],
  workspace: string,
  args: readonly string[],
): ActionInputs['surface'] {
  if (!(SURFACES as readonly string[]).includes(value))
    throw new ActionInputError(`surface: '${value}' is not one of ${SURFACES.join(', ')}`);
  if (args.includes('--include-destructive'))
    return { full: true, why: 'args give --include-destructive' };
  if (value === 'full') return { full: true, why: 'surface: full' };
  if (value === 'default') return { full: false, why: 'surface: default' };
  if (target?.flag !== '--stdio')
    return { full: false, why: 'the target is not a server this step starts from the repository' };
  let words: string[];
  try {
    const { command, args: rest } = splitCommandLine(target.value);
    words = [command, ...rest];
  } catch {
    return { full: false, why: 'the target command could not be read' };
  }
  const own = words.slice(0, 3).find((w) => !w.startsWith('-') && insideWorkspace(w, workspace));
  return own === undefined
    ? { full: false, why: 'the target command runs nothing from the repository' }
    : {
        full: true,
        why: `the step starts the server from the repository (${own}): an instance of its own`,
      };
}

/** Whether `word` names an existing file inside `workspace` (after links are followed). */
function insideWorkspace(word: string, workspace: string): boolean {
  const path = isAbsolute(word) ? word : resolve(workspace, word);
  if (!existsSync(path)) return false;
  try {
    const rel = relative(realpathSync(workspace), realpathSync(path));
    return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
  } catch {
    return false;
  }
}
