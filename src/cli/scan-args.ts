/**
 * Arguments of `stateguard scan`: parsed with `node:util` `parseArgs` (strict), validated, and turned
 * into a scan configuration. Every problem is a {@link ProbeUsageError} with a one-line message
 * (exit 2); what is legal but probably not meant is a warning the command prints before scanning.
 * Nothing here touches the network or spawns anything; files named by flags are read or checked
 * here, so that no scan runs only to fail at the end.
 */
import { homedir } from 'node:os';
import { parseArgs } from 'node:util';
import { ProbeUsageError } from '../errors.js';
import type { Baseline } from '../probe/runner/baseline.js';
import { isProbeId, PROBE_IDS } from '../probe/runner/probe-ids.js';
import type { ExtraSecret } from '../probe/evidence/evidence.js';
import { SCAN_DEFAULTS } from '../probe/runner/defaults.js';
import { DEFAULT_PRINCIPAL_META_KEY } from '../probe/target/session-options.js';
import type { HttpTls, Target } from '../probe/model/target.js';
import { EVIDENCE_MODES, isReportFormat, REPORT_FORMATS } from '../report/formats.js';
import type { EvidenceMode, ReportFormat } from '../report/formats.js';
import { parseSarifLocation, sourceRootOf } from '../report/sarif-location.js';
import { parseArgsMessage } from '../parse-args-message.js';
import { parseDuration } from './duration.js';
import { readBaseline } from './read-baseline.js';
import { checkWritable, readCa } from './files.js';
import { headerLine, RESERVED_HEADERS, type HeaderLine } from './header-line.js';
import { connectionPolicy, target } from './scan-target.js';
import { ENGINE_FORMAT, engineInput, type EngineInput } from './engine-env.js';
import { identityWarnings } from './scan-warnings.js';
import { ENV_NAME } from './env-name.js';
import { stdioLaunchEnv } from './stdio-env.js';
import type { RegistryRequest } from './registry-command.js';
import { registryRequest, REGISTRY_ONLY_FLAGS } from './registry/args.js';
import {
  checkConfigFlags,
  DEFAULT_CONCURRENCY,
  selectServers,
  type ConfigSelection,
} from './config/select.js';

export type { HeaderLine } from './header-line.js';

export { splitCommandLine } from './command-line.js';

/** A validated `scan` invocation: one target, the servers of client configurations, or a registry's. */
export type ScanArgs = CommonScanArgs &
  (
    | { readonly target: Target; readonly config?: undefined; readonly registry?: undefined }
    | {
        readonly target?: undefined;
        readonly config: ConfigSelection;
        readonly registry?: undefined;
      }
    | {
        readonly target?: undefined;
        readonly config?: undefined;
        readonly registry: RegistryRequest;
      }
  );

/** What every `scan` invocation carries. */
export interface CommonScanArgs {
  /** The probes to run, by id (probe-ids.ts), in registry order: scan-common.ts loads them. */
  readonly probeIds: readonly string[];
  readonly identities: { A?: string; B?: string };
  readonly principalMetaKey: string;
  readonly identityHeader?: HeaderLine;
  readonly identityEnv?: string;
  readonly headers: readonly HeaderLine[];
  /** `--env` and `--env-file` values handed to a stdio target: redacted in every report. */
  readonly secrets: readonly ExtraSecret[];
  readonly includeDestructive: boolean;
  /** `--allow-tool`: tools the user lets the scan call, by name, whatever their class. */
  readonly allowTools: readonly string[];
  /** `--plan`: print the call plan and call nothing. */
  readonly planOnly: boolean;
  readonly allowMintedInRisky: boolean;
  readonly timeoutMs: number;
  readonly deadlineMs: number;
  /** `--serial`: the probes one after another, in registry order (for debugging). */
  readonly serial: boolean;
  readonly startupTimeoutMs: number;
  readonly maxAnswerBytes: number;
  /** `--expiry-wait`, in ms. */
  readonly expiryWaitMs?: number;
  /** `--peer` / `--peer-stdio`. */
  readonly peer?: Target;
  readonly format: ReportFormat;
  readonly output?: string;
  readonly baseline?: Baseline;
  readonly writeBaseline?: string;
  /** `--allow-undecided`: a run in which no probe decided exits as its other verdicts say. */
  readonly allowUndecided: boolean;
  readonly evidence: EvidenceMode;
  readonly all: boolean;
  /** `--sarif-location`: the repository-relative file and line SARIF results point at. */
  readonly sarifLocation?: { readonly uri: string; readonly line: number };
  readonly quiet: boolean;
  /** Legal but probably not meant: printed on stderr before the scan starts. */
  readonly warnings: readonly string[];
  /** cert-x-gen engine mode (`--format cert-x-gen`, `CERT_X_GEN_MODE=engine`): always exit 0. */
  readonly engine: boolean;
}

/** Every flag `scan` accepts; `--help` must document each (a test holds it to that). */
export const SCAN_OPTIONS = {
  http: { type: 'string' },
  stdio: { type: 'string' },
  config: { type: 'string', multiple: true },
  server: { type: 'string', multiple: true },
  concurrency: { type: 'string' },
  registry: { type: 'string' },
  'server-json': { type: 'string' },
  'run-packages': { type: 'boolean' },
  'allow-remote': { type: 'string', multiple: true },
  values: { type: 'string' },
  'include-deprecated': { type: 'boolean' },
  'registry-search': { type: 'string' },
  'registry-updated-since': { type: 'string' },
  'registry-version': { type: 'string' },
  'registry-page-size': { type: 'string' },
  'registry-max-pages': { type: 'string' },
  'registry-max-entries': { type: 'string' },
  'identity-a': { type: 'string' },
  'identity-b': { type: 'string' },
  'principal-meta-key': { type: 'string' },
  'identity-header': { type: 'string' },
  'identity-env': { type: 'string' },
  env: { type: 'string', multiple: true },
  'env-file': { type: 'string' },
  header: { type: 'string', multiple: true },
  ca: { type: 'string' },
  insecure: { type: 'boolean' },
  'http-connection': { type: 'string' },
  probe: { type: 'string', multiple: true },
  'skip-probe': { type: 'string', multiple: true },
  'include-destructive': { type: 'boolean' },
  'allow-tool': { type: 'string', multiple: true },
  plan: { type: 'boolean' },
  'allow-minted-in-risky': { type: 'boolean' },
  timeout: { type: 'string' },
  deadline: { type: 'string' },
  serial: { type: 'boolean' },
  'startup-timeout': { type: 'string' },
  'max-answer-bytes': { type: 'string' },
  'expiry-wait': { type: 'string' },
  peer: { type: 'string' },
  'peer-stdio': { type: 'string' },
  format: { type: 'string' },
  output: { type: 'string' },
  baseline: { type: 'string' },
  'write-baseline': { type: 'string' },
  'strict-baseline': { type: 'boolean' },
  'allow-undecided': { type: 'boolean' },
  evidence: { type: 'string' },
  all: { type: 'boolean' },
  'sarif-location': { type: 'string' },
  quiet: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

function count(flag: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const n = /^\d+$/.test(value.trim()) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n) || n <= 0)
    throw new ProbeUsageError(`--${flag} needs a positive integer, got '${value}'`);
  return n;
}

/** The ids `--probe` and `--skip-probe` leave, checked against the ids alone (no probe loads). */
function selectProbes(only: readonly string[], skip: readonly string[]): string[] {
  const ids = PROBE_IDS.join(', ') || 'none registered';
  const lookup = (flag: string, id: string): string => {
    if (!isProbeId(id))
      throw new ProbeUsageError(
        `unknown probe '${id}'${flag === 'probe' ? '' : ` in --${flag}`} (${ids})`,
      );
    return id;
  };
  const chosen =
    only.length > 0 ? [...new Set(only.map((id) => lookup('probe', id)))] : [...PROBE_IDS];
  const skipped = new Set(skip.map((id) => lookup('skip-probe', id)));
  const left = chosen.filter((p) => !skipped.has(p));
  if (left.length === 0) throw new ProbeUsageError('--skip-probe leaves no probe to run');
  return left;
}

/**
 * `--config` may stand alone (the well-known locations): given no value (last, or before another
 * flag), it becomes `--config=`, whose empty value means "look in the usual places".
 */
function bareConfig(argv: readonly string[]): string[] {
  return argv.map((a, i) =>
    a === '--config' && (i + 1 >= argv.length || (argv[i + 1] ?? '').startsWith('-'))
      ? '--config='
      : a,
  );
}

/** Where `--config` resolves relative files and looks for well-known ones. */
export interface ScanPlace {
  readonly cwd: string;
  readonly home: string;
}

/** The flags as `parseArgs` returns them. */
type ScanValues = ReturnType<
  typeof parseArgs<{ options: typeof SCAN_OPTIONS; strict: true }>
>['values'];

/** Where the servers come from: the target flags, client configurations or a registry. */
interface ScanSource {
  /** `--registry` or `--server-json`. */
  readonly fromRegistry: boolean;
  /** The registry flag given, for messages. */
  readonly registryLabel: string;
  /** `--config`, or a registry (whose servers are read as a configuration's are). */
  readonly fromConfig: boolean;
}

/** The identities and where they travel. */
interface ScanIdentities {
  readonly principalMetaKey: string;
  readonly a?: string;
  readonly b?: string;
  readonly identityHeader?: HeaderLine;
  readonly identityEnv?: string;
}

/** The single target (none with `--config` or a registry) and how HTTP reaches it. */
interface ScanReach {
  readonly tls?: HttpTls;
  readonly connection?: ReturnType<typeof connectionPolicy>;
  readonly target?: Target;
}

/**
 * Parses `scan` arguments; `env` supplies the identity variables (and the placeholders of
 * configuration files). Throws {@link ProbeUsageError}. The phases run in order, so that the first
 * problem of an invocation is the one reported: read the flags, check where each applies, resolve
 * the target, read the files the flags name, then assemble.
 */
export function parseScanArgs(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  place: ScanPlace = { cwd: process.cwd(), home: homedir() },
): ScanArgs | 'help' {
  const values = readScanFlags(argv);
  if (values === 'help') return 'help';
  const format = values.format ?? 'text';
  if (!isReportFormat(format))
    throw new ProbeUsageError(`unknown --format '${format}' (${REPORT_FORMATS.join(', ')})`);
  const source = scanSource(values, format);
  const evidence = evidenceMode(values.evidence);
  const probeIds = selectProbes(values.probe ?? [], values['skip-probe'] ?? []);
  const engine = engineMode(values, format, env);
  const named = namedIdentities(values, engine, env);
  checkFileNames(values);
  const reach = scanReach(values, source, engine);
  const who: ScanIdentities = { ...named, ...identityCarriers(values, reach.target) };
  const launch = launchEnv(values, source, reach.target, env);
  const headers = extraHeaders(values.header ?? [], reach.target, who.identityHeader);
  const sarifLocation = sarifPlace(values['sarif-location'], env);
  const warnings = [
    ...(launch?.warnings ?? []),
    ...flagWarnings(values, format, reach, sarifLocation),
    ...identityWarnings(who.a, who.b, env, engine === undefined ? undefined : 'CXG_MCP_IDENTITY_'),
  ];
  const servers = serverOptions(who, env, reach);
  const { identities } = servers;
  const selection =
    source.fromConfig && !source.fromRegistry
      ? selectServers({
          files: values.config ?? [],
          names: values.server ?? [],
          concurrency: count('concurrency', values.concurrency, DEFAULT_CONCURRENCY),
          place,
          plan: { ...servers, userHome: place.home },
        })
      : undefined;
  const outputs = outputFiles(values);
  const withEnv = (t: Target): Target =>
    t.kind === 'stdio' && launch !== undefined && t.env === undefined
      ? { ...t, env: launch.env }
      : t;
  const common: CommonScanArgs = {
    probeIds,
    identities,
    principalMetaKey: who.principalMetaKey,
    ...(who.identityHeader === undefined ? {} : { identityHeader: who.identityHeader }),
    ...(who.identityEnv === undefined ? {} : { identityEnv: who.identityEnv }),
    headers,
    secrets: launch?.secrets ?? [],
    ...callPolicy(values, engine),
    ...scanLimits(values, reach.target, withEnv),
    format,
    ...outputs,
    evidence,
    all: values.all ?? false,
    ...(sarifLocation !== undefined ? { sarifLocation } : {}),
    quiet: values.quiet ?? false,
    warnings,
    engine: engine !== undefined,
  };
  if (source.fromRegistry)
    return {
      ...common,
      registry: registryRequest(values, {
        ...servers,
        concurrency: count('concurrency', values.concurrency, DEFAULT_CONCURRENCY),
      }),
    };
  if (selection !== undefined) return { ...common, config: selection };
  if (reach.target === undefined) throw new ProbeUsageError('no target'); // unreachable: target() threw
  return { ...common, target: withEnv(reach.target) };
}

/** The flags, strictly parsed, or `'help'`. */
function readScanFlags(argv: readonly string[]): ScanValues | 'help' {
  let values: ScanValues;
  try {
    ({ values } = parseArgs({
      args: bareConfig(argv),
      options: SCAN_OPTIONS,
      strict: true,
      allowPositionals: false,
    }));
  } catch (err) {
    throw new ProbeUsageError(parseArgsMessage(err));
  }
  return values.help ? 'help' : values;
}

/** Which of target, `--config` and registry the servers come from, and the flags each admits. */
function scanSource(values: ScanValues, format: ReportFormat): ScanSource {
  const fromRegistry = values.registry !== undefined || values['server-json'] !== undefined;
  const registryLabel = values.registry !== undefined ? '--registry' : '--server-json';
  if (values.registry !== undefined && values['server-json'] !== undefined)
    throw new ProbeUsageError('give either --registry or --server-json, not both');
  if (fromRegistry && values.config !== undefined)
    throw new ProbeUsageError(`give either ${registryLabel} or --config, not both`);
  if (!fromRegistry)
    for (const flag of REGISTRY_ONLY_FLAGS)
      if (values[flag] !== undefined)
        throw new ProbeUsageError(`--${flag} applies to --registry and --server-json only`);
  // From here on a registry's servers are read as a configuration's are.
  const fromConfig = values.config !== undefined || fromRegistry;
  if (fromConfig) checkConfigFlags(values, format, fromRegistry ? registryLabel : '--config');
  else
    for (const flag of ['server', 'concurrency'] as const)
      if (values[flag] !== undefined)
        throw new ProbeUsageError(`--${flag} applies to --config only`);
  return { fromRegistry, registryLabel, fromConfig };
}

function evidenceMode(value: string | undefined): EvidenceMode {
  const evidence = value ?? 'summary';
  if (!(EVIDENCE_MODES as readonly string[]).includes(evidence)) {
    throw new ProbeUsageError(`unknown --evidence '${evidence}' (${EVIDENCE_MODES.join(', ')})`);
  }
  return evidence as EvidenceMode;
}

/** cert-x-gen engine mode: the target and the seed's CXG_MCP_* settings come from the environment. */
function engineMode(
  values: ScanValues,
  format: ReportFormat,
  env: NodeJS.ProcessEnv,
): EngineInput | undefined {
  if (format !== ENGINE_FORMAT || env.CERT_X_GEN_MODE !== 'engine') return undefined;
  if (values.http !== undefined || values.stdio !== undefined)
    throw new ProbeUsageError(
      'CERT_X_GEN_MODE=engine takes the target from CERT_X_GEN_TARGET_*; remove --http/--stdio',
    );
  return engineInput(env);
}

/** The two identities and the `_meta` key that carries them over stdio: flag, engine, then env. */
function namedIdentities(
  values: ScanValues,
  engine: EngineInput | undefined,
  env: NodeJS.ProcessEnv,
): ScanIdentities {
  const key =
    values['principal-meta-key'] ?? engine?.principalMetaKey ?? DEFAULT_PRINCIPAL_META_KEY;
  if (key.length === 0) throw new ProbeUsageError('--principal-meta-key must not be empty');
  const a = values['identity-a'] ?? engine?.identities.A ?? env.STATEGUARD_IDENTITY_A;
  const b = values['identity-b'] ?? engine?.identities.B ?? env.STATEGUARD_IDENTITY_B;
  for (const [flag, v] of [
    ['identity-a', a],
    ['identity-b', b],
  ] as const) {
    if (v !== undefined && v.length === 0) throw new ProbeUsageError(`--${flag} must not be empty`);
  }
  return {
    principalMetaKey: key,
    ...(a !== undefined ? { a } : {}),
    ...(b !== undefined ? { b } : {}),
  };
}

function checkFileNames(values: ScanValues): void {
  for (const flag of ['output', 'baseline', 'write-baseline', 'ca'] as const) {
    if (values[flag] !== undefined && values[flag].length === 0)
      throw new ProbeUsageError(`--${flag} needs a file name`);
  }
}

/** TLS settings, the HTTP connection policy and the single target. */
function scanReach(
  values: ScanValues,
  source: ScanSource,
  engine: EngineInput | undefined,
): ScanReach {
  if (values.ca !== undefined && values.insecure)
    throw new ProbeUsageError('give either --ca or --insecure, not both');
  // Where it applies is checked first: a CA file for a stdio target need not be read to be wrong.
  if (
    (values.ca !== undefined || values.insecure) &&
    values.http === undefined &&
    !source.fromConfig
  )
    throw new ProbeUsageError(
      `${values.ca !== undefined ? '--ca' : '--insecure'} applies to --http https:// targets only`,
    );
  if (values.ca !== undefined && values.http !== undefined && !/^https:/i.test(values.http))
    throw new ProbeUsageError('--ca applies to https:// URLs only');
  const tls: HttpTls | undefined =
    values.ca !== undefined
      ? { ca: readCa(values.ca) }
      : values.insecure
        ? { insecure: true }
        : undefined;
  // With --config the policy applies to whichever servers are HTTP: any value stands for "there is
  // an HTTP target" in the check. In engine mode the target comes from the environment and the
  // policy is not asked.
  const connection =
    engine === undefined
      ? connectionPolicy(values['http-connection'], source.fromConfig ? '--config' : values.http)
      : undefined;
  // With --config the targets come from the files; every transport may be among them.
  const tgt = source.fromConfig
    ? undefined
    : (engine?.target ?? target(values.http, values.stdio, connection, tls));
  return {
    ...(tls ? { tls } : {}),
    ...(connection ? { connection } : {}),
    ...(tgt ? { target: tgt } : {}),
  };
}

/** What the configuration and registry planners take for every server they plan. */
function serverOptions(who: ScanIdentities, env: NodeJS.ProcessEnv, reach: ScanReach) {
  return {
    env,
    identities: {
      ...(who.a !== undefined ? { A: who.a } : {}),
      ...(who.b !== undefined ? { B: who.b } : {}),
    },
    carrier: carrierOf(who.identityHeader),
    ...(reach.tls ? { tls: reach.tls } : {}),
    ...(reach.connection ? { connection: reach.connection } : {}),
  };
}

/** `--identity-header` (HTTP) and `--identity-env` (stdio): where the identities travel. */
function identityCarriers(
  values: ScanValues,
  tgt: Target | undefined,
): Pick<ScanIdentities, 'identityHeader' | 'identityEnv'> {
  const identityHeader = headerLine('identity-header', values['identity-header'], true);
  const identityEnv = values['identity-env'];
  if (identityEnv !== undefined && !ENV_NAME.test(identityEnv))
    throw new ProbeUsageError('--identity-env takes an environment variable name, e.g. API_TOKEN');
  if (identityHeader !== undefined && tgt !== undefined && tgt.kind !== 'http')
    throw new ProbeUsageError('--identity-header applies to --http targets only');
  if (identityEnv !== undefined && tgt !== undefined && tgt.kind !== 'stdio')
    throw new ProbeUsageError('--identity-env applies to --stdio targets only');
  return {
    ...(identityHeader === undefined ? {} : { identityHeader }),
    ...(identityEnv === undefined ? {} : { identityEnv }),
  };
}

/** Every stdio target starts in the minimal environment plus what --env and --env-file name. */
function launchEnv(
  values: ScanValues,
  source: ScanSource,
  tgt: Target | undefined,
  env: NodeJS.ProcessEnv,
): ReturnType<typeof stdioLaunchEnv> | undefined {
  const named = values.env ?? [];
  if (source.fromRegistry && values['env-file'] !== undefined)
    throw new ProbeUsageError(
      `--env-file does not combine with ${source.registryLabel}; give values by server name with --values`,
    );
  if (
    !source.fromRegistry &&
    (named.length > 0 || values['env-file'] !== undefined) &&
    tgt?.kind !== 'stdio'
  )
    throw new ProbeUsageError(
      source.fromConfig
        ? `--${named.length > 0 ? 'env' : 'env-file'} applies to --stdio targets only; with --config, name the variable in the server's "env" entry`
        : `--${named.length > 0 ? 'env' : 'env-file'} applies to --stdio targets only`,
    );
  if (source.fromRegistry)
    for (const name of named)
      if (!ENV_NAME.test(name))
        throw new ProbeUsageError(`--env takes an environment variable name, e.g. API_TOKEN`);
  return tgt?.kind === 'stdio' ? stdioLaunchEnv(named, values['env-file'], env) : undefined;
}

/** The header that carries the identities, lower-cased: `--identity-header`, or `authorization`. */
function carrierOf(identityHeader: HeaderLine | undefined): string {
  return (identityHeader?.name ?? 'authorization').toLowerCase();
}

/** `--header` lines: HTTP only, and never a header the scanner sends or the identities ride in. */
function extraHeaders(
  lines: readonly string[],
  tgt: Target | undefined,
  identityHeader: HeaderLine | undefined,
): HeaderLine[] {
  const headers = lines.map((h) => headerLine('header', h, false) as HeaderLine);
  if (headers.length > 0 && tgt?.kind !== 'http')
    throw new ProbeUsageError('--header applies to --http targets only');
  const carrier = carrierOf(identityHeader);
  for (const h of headers) {
    const lower = h.name.toLowerCase();
    if (RESERVED_HEADERS.has(lower))
      throw new ProbeUsageError(`--header cannot set ${h.name}: the scanner sends it itself`);
    if (lower === carrier)
      throw new ProbeUsageError(
        `--header cannot set ${h.name}: it carries the identities (use --identity-header to move them)`,
      );
  }
  return headers;
}

/** Flags that are legal here but change nothing, and `--insecure`'s warning. */
function flagWarnings(
  values: ScanValues,
  format: ReportFormat,
  reach: ScanReach,
  sarifLocation: { uri: string; line: number } | undefined,
): string[] {
  const warnings: string[] = [];
  if (values['principal-meta-key'] !== undefined && reach.target?.kind === 'http')
    warnings.push(
      '--principal-meta-key applies to --stdio targets only; over HTTP the identity is a bearer token (or --identity-header), so it is ignored',
    );
  if (values.all && format !== 'sarif')
    warnings.push(`--all applies to --format sarif only; the ${format} report is unchanged`);
  if (sarifLocation !== undefined && format !== 'sarif')
    warnings.push(
      `--sarif-location applies to --format sarif only; the ${format} report is unchanged`,
    );
  if (reach.tls?.insecure)
    warnings.push(
      "WARNING: --insecure: the server's TLS certificate is NOT verified; anyone on the path can read the identities and answers. Use --ca <file> for an internal CA",
    );
  return warnings;
}

/** Read and checked before any scan starts: a bad file is a usage error, not a lost report. */
function outputFiles(
  values: ScanValues,
): Pick<CommonScanArgs, 'output' | 'baseline' | 'writeBaseline'> {
  if (values['strict-baseline'] === true && values.baseline === undefined)
    throw new ProbeUsageError('--strict-baseline needs --baseline <file>');
  const baseline =
    values.baseline !== undefined
      ? { ...readBaseline(values.baseline), strict: values['strict-baseline'] === true }
      : undefined;
  if (values.output !== undefined) checkWritable('output', values.output);
  if (values['write-baseline'] !== undefined)
    checkWritable('write-baseline', values['write-baseline']);
  return {
    ...(values.output !== undefined ? { output: values.output } : {}),
    ...(baseline !== undefined ? { baseline } : {}),
    ...(values['write-baseline'] !== undefined ? { writeBaseline: values['write-baseline'] } : {}),
  };
}

/** The time limits, the answer bound, the peer and the expiry wait. */
function scanLimits(
  values: ScanValues,
  tgt: Target | undefined,
  withEnv: (t: Target) => Target,
): Pick<
  CommonScanArgs,
  | 'timeoutMs'
  | 'deadlineMs'
  | 'serial'
  | 'startupTimeoutMs'
  | 'maxAnswerBytes'
  | 'peer'
  | 'expiryWaitMs'
> {
  const duration = (flag: string, value: string | undefined, fallback: number): number =>
    value === undefined ? fallback : parseDuration(flag, value);
  const limits = {
    timeoutMs: duration('timeout', values.timeout, SCAN_DEFAULTS.timeoutMs),
    deadlineMs: duration('deadline', values.deadline, SCAN_DEFAULTS.deadlineMs),
    serial: values.serial ?? false,
    startupTimeoutMs: duration(
      'startup-timeout',
      values['startup-timeout'],
      SCAN_DEFAULTS.startupTimeoutMs,
    ),
    maxAnswerBytes: count(
      'max-answer-bytes',
      values['max-answer-bytes'],
      SCAN_DEFAULTS.maxAnswerBytes,
    ),
  };
  const peer =
    tgt === undefined ? undefined : peerTarget(values.peer, values['peer-stdio'], tgt).peer;
  return {
    ...limits,
    ...(peer === undefined ? {} : { peer: withEnv(peer) }),
    ...(values['expiry-wait'] === undefined
      ? {}
      : { expiryWaitMs: duration('expiry-wait', values['expiry-wait'], 0) }),
  };
}

/** What the scan may call, and whether a run in which no probe decided fails. */
function callPolicy(
  values: ScanValues,
  engine: EngineInput | undefined,
): Pick<
  CommonScanArgs,
  'includeDestructive' | 'allowTools' | 'planOnly' | 'allowMintedInRisky' | 'allowUndecided'
> {
  return {
    includeDestructive:
      (values['include-destructive'] ?? false) || engine?.includeDestructive === true,
    allowTools: allowedTools(values['allow-tool'] ?? []),
    planOnly: values.plan ?? false,
    allowMintedInRisky: values['allow-minted-in-risky'] ?? false,
    allowUndecided: values['allow-undecided'] ?? false,
  };
}

/** `--allow-tool <name>` values: each a tool name as the server lists it (no blanks around it). */
function allowedTools(names: readonly string[]): string[] {
  for (const name of names)
    if (name.trim() === '' || name.length > 256)
      throw new ProbeUsageError(
        `--allow-tool needs a tool's name as the server lists it, got ${name.trim() === '' ? 'an empty one' : `${name.length} characters`}`,
      );
  return [...new Set(names)];
}

/** `--sarif-location <path>[:<line>]`, made relative to the repository root (sarif-location.ts). */
function sarifPlace(
  value: string | undefined,
  env: NodeJS.ProcessEnv,
): { uri: string; line: number } | undefined {
  if (value === undefined) return undefined;
  const place = parseSarifLocation(value, sourceRootOf(env, process.cwd()));
  if (typeof place === 'string') throw new ProbeUsageError(`--sarif-location ${place}`);
  return place;
}

/** `--peer <url>` (with `--http`) or `--peer-stdio "<command>"` (with `--stdio`), as a target. */
function peerTarget(
  url: string | undefined,
  stdio: string | undefined,
  main: Target,
): { peer?: Target } {
  if (url === undefined && stdio === undefined) return {};
  if (url !== undefined && stdio !== undefined)
    throw new ProbeUsageError('give either --peer or --peer-stdio, not both');
  if (url !== undefined && main.kind !== 'http')
    throw new ProbeUsageError('--peer applies to --http targets; use --peer-stdio with --stdio');
  if (stdio !== undefined && main.kind !== 'stdio')
    throw new ProbeUsageError('--peer-stdio applies to --stdio targets; use --peer with --http');
  // The peer is the same deployment: the same connection policy and TLS settings as the target.
  const peer = target(
    url,
    stdio,
    main.kind === 'http' ? main.connection : undefined,
    main.kind === 'http' ? main.tls : undefined,
  );
  return { peer };
}
