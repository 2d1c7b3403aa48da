/**
 * Arguments of `stateguard scan`: parsed with `node:util` `parseArgs` (strict), validated, and turned
 * into a scan configuration. Every problem is a {@link ProbeUsageError} with a one-line message
 * (exit 2); nothing here touches the network or spawns anything.
 */
import { parseArgs } from 'node:util';
import { parse as shellParse } from 'shell-quote';
import { ProbeUsageError } from '../errors.js';
import type { Baseline } from '../probe/baseline.js';
import { findProbe, PROBES } from '../probe/registry.js';
import type { Probe } from '../probe/define.js';
import { SCAN_DEFAULTS } from '../probe/scan.js';
import { DEFAULT_PRINCIPAL_META_KEY } from '../probe/target/session.js';
import { CONNECTION_POLICIES, type ConnectionPolicy } from '../probe/target/http-connection.js';
import type { Target } from '../probe/types.js';
import { EVIDENCE_MODES, isReportFormat, REPORT_FORMATS } from '../report/index.js';
import type { EvidenceMode, ReportFormat } from '../report/index.js';
import { parseArgsMessage } from '../parse-args-message.js';
import { readBaseline } from './read-baseline.js';

/** The help text; it documents every flag `parseArgs` accepts. */
export const SCAN_HELP = `Usage: stateguard scan (--http <url> | --stdio "<command line>") [options]

Scans one MCP 2026-07-28 server for unbound handles and unprotected requestState, with two
identities (A and B), controls that must hold before any verdict, and the evidence of every call.

Target (exactly one):
  --http <url>                 a Streamable HTTP endpoint, e.g. http://127.0.0.1:3000/mcp
  --stdio "<command line>"     a command to spawn (split like a shell would, but run without one)

Identities (default: two random ones per run):
  --identity-a <secret>        identity A; or env STATEGUARD_IDENTITY_A (keeps it out of ps)
  --identity-b <secret>        identity B; or env STATEGUARD_IDENTITY_B
                               HTTP: sent as "Authorization: Bearer <secret>"
                               stdio: sent as params._meta[<key>]
  --principal-meta-key <key>   the stdio _meta key (default ${DEFAULT_PRINCIPAL_META_KEY})
  --identity-header "<Name>: <value>"
                               HTTP: send the identity in this header instead of a bearer
                               token; {identity} in the value is replaced, e.g.
                               --identity-header 'X-Api-Key: {identity}'
  --identity-env <NAME>        stdio: the server reads its identity from this environment
                               variable; A and B then run as two processes of the command

Selection:
  --probe <id>                 run only this probe (repeatable); ids: ${PROBES.map((p) => p.id).join(', ') || '(none registered)'}
  --include-destructive        also call the tools left alone by default: those that may
                               destroy data (destructiveHint, or a destructive verb in name or
                               description) and those that run commands or code, run queries,
                               fetch URLs or touch files (by name, description or a parameter
                               such as command, code, query, url or path); the report lists
                               every tool not called and why
  --allow-minted-in-risky      also let a value the server minted reach such a tool's command,
                               code, query, url or path parameter; off even with
                               --include-destructive

Connections:
  --http-connection <policy>   auto | fresh | reuse | adaptive (default auto): fresh opens a
                               connection per exchange, reuse keeps one alive, adaptive keeps
                               one alive until an answer stalls (a server writing headers and
                               body apart without TCP_NODELAY), then goes fresh; auto is fresh
                               on a loopback host and adaptive elsewhere

Limits:
  --timeout <ms>               per call (default ${SCAN_DEFAULTS.timeoutMs}); "5s" also works
  --deadline <ms>              whole scan (default ${SCAN_DEFAULTS.deadlineMs}); "30s" also works
  --startup-timeout <ms>       stdio: how long the child may take to give its first answer
                               (default ${SCAN_DEFAULTS.startupTimeoutMs}; within the deadline)
  --max-answer-bytes <n>       largest answer read (default ${SCAN_DEFAULTS.maxAnswerBytes})
  --peer <url>                 state/cross-instance: another HTTP endpoint of the same
                               deployment; a flow and a handle hop from the target to it
  --peer-stdio "<command line>"
                               state/cross-instance: a second process of the same server
                               (with --stdio). Without a peer, state/cross-instance is skipped
  --expiry-wait <duration>     state/expiry: the longest a state should live (at least what the
                               server promises; the seeds' rule is 600s). The probe waits that
                               long and sends a state back; the wait extends --deadline by as
                               much. Without it, state/expiry is skipped

Output:
  --format <format>            ${REPORT_FORMATS.join(' | ')} (default text)
                               text: one line per probe, controls and evidence beneath
                               json: the canonical report (schemaVersion 1), all evidence
                               sarif: SARIF 2.1.0; confirmed → kind fail (level from severity),
                                 errored → kind open + a tool-execution notification
                               junit: one testcase per probe; confirmed → failure,
                                 errored → error, skipped → skipped, refuted passes
  --output <file>              write the report to a file (the summary line then goes to stderr)
  --baseline <file>            accepted findings, one a line: <probe-id> (any target) or
                               <probe-id>@<target> (the report's target exactly, e.g.
                               stdio:node server.js); # comments. A confirmed result an entry
                               accepts stays confirmed, marked baselined, and does not fail
                               the run; an entry whose probe is now refuted is stale and fails
                               the run (exit 1)
  --evidence <mode>            text, sarif, junit: ${EVIDENCE_MODES.join(' | ')} (default summary)
  --all                        sarif: also emit refuted (kind pass) and skipped (kind
                               notApplicable) results; off by default, because some consumers
                               ignore kind and would show every result as a finding
  --quiet                      no progress on stderr
  -h, --help                   this help

Verdicts (every one carries the exchanges that back it, tokens redacted):
  confirmed   the flaw was shown (A's canary or principal reaching B, a changed state honoured
              while a random one is refused) and every control held; where a control showed no
              validation at all, only the flaw's own marker confirms
  refuted     the property held, and every control held
  skipped     the surface is legitimately absent (no handle minted and consumed, no
              input_required, a pre-2026-07-28 server); the precondition is named
  errored     a control failed, or a call drew no decision (timeout, 5xx, empty or HTML body,
              dropped connection, unrunnable command, deadline); never read as a refusal

Exit codes: 0 nothing confirmed or errored · 1 something confirmed (and not baselined), or a
            stale baseline entry · 2 usage error · 3 something errored and nothing confirmed
`;

/** A validated `scan` invocation. */
export interface ScanArgs {
  readonly target: Target;
  readonly probes: readonly Probe[];
  readonly identities: { A?: string; B?: string };
  readonly principalMetaKey: string;
  readonly identityHeader?: { readonly name: string; readonly value: string };
  readonly identityEnv?: string;
  readonly includeDestructive: boolean;
  readonly allowMintedInRisky: boolean;
  readonly timeoutMs: number;
  readonly deadlineMs: number;
  readonly startupTimeoutMs: number;
  readonly maxAnswerBytes: number;
  /** `--expiry-wait`, in ms. */
  readonly expiryWaitMs?: number;
  /** `--peer` / `--peer-stdio`. */
  readonly peer?: Target;
  readonly format: ReportFormat;
  readonly output?: string;
  readonly baseline?: Baseline;
  readonly evidence: EvidenceMode;
  readonly all: boolean;
  readonly quiet: boolean;
}

/** Every flag `scan` accepts; `--help` must document each (a test holds it to that). */
export const SCAN_OPTIONS = {
  http: { type: 'string' },
  stdio: { type: 'string' },
  'identity-a': { type: 'string' },
  'identity-b': { type: 'string' },
  'principal-meta-key': { type: 'string' },
  'identity-header': { type: 'string' },
  'identity-env': { type: 'string' },
  'http-connection': { type: 'string' },
  probe: { type: 'string', multiple: true },
  'include-destructive': { type: 'boolean' },
  'allow-minted-in-risky': { type: 'boolean' },
  timeout: { type: 'string' },
  deadline: { type: 'string' },
  'startup-timeout': { type: 'string' },
  'max-answer-bytes': { type: 'string' },
  'expiry-wait': { type: 'string' },
  peer: { type: 'string' },
  'peer-stdio': { type: 'string' },
  format: { type: 'string' },
  output: { type: 'string' },
  baseline: { type: 'string' },
  evidence: { type: 'string' },
  all: { type: 'boolean' },
  quiet: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

function duration(flag: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const m = /^(\d+)(ms|s)?$/.exec(value.trim());
  const n = m ? Number(m[1]) * (m[2] === 's' ? 1000 : 1) : NaN;
  if (!Number.isSafeInteger(n) || n <= 0) {
    throw new ProbeUsageError(`--${flag} needs a positive number of ms, got '${value}'`);
  }
  return n;
}

function count(flag: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const n = /^\d+$/.test(value.trim()) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n) || n <= 0)
    throw new ProbeUsageError(`--${flag} needs a positive integer, got '${value}'`);
  return n;
}

/** Splits a command line like a POSIX shell would, refusing what only a shell could run. */
export function splitCommandLine(line: string): { command: string; args: string[] } {
  // Variables stay literal: no shell runs, so nothing would expand them.
  const tokens = shellParse(line, (name) => `$${name}`);
  const words: string[] = [];
  for (const t of tokens) {
    if (typeof t === 'string') words.push(t);
    else if ('op' in t && t.op === 'glob') words.push(t.pattern);
    else if ('op' in t)
      throw new ProbeUsageError(`--stdio runs no shell; remove '${t.op}' from the command line`);
    else
      throw new ProbeUsageError('--stdio runs no shell; remove the comment from the command line');
  }
  const [command, ...args] = words;
  if (command === undefined || command.length === 0)
    throw new ProbeUsageError('--stdio needs a command line');
  return { command, args };
}

function connectionPolicy(
  value: string | undefined,
  http: string | undefined,
): ConnectionPolicy | undefined {
  if (value === undefined) return undefined;
  if (http === undefined) throw new ProbeUsageError('--http-connection applies only to --http');
  if (!(CONNECTION_POLICIES as readonly string[]).includes(value))
    throw new ProbeUsageError(
      `unknown --http-connection '${value}' (${CONNECTION_POLICIES.join(', ')})`,
    );
  return value as ConnectionPolicy;
}

function target(
  http: string | undefined,
  stdio: string | undefined,
  connection: ConnectionPolicy | undefined,
): Target {
  if (http !== undefined && stdio !== undefined)
    throw new ProbeUsageError('give either --http or --stdio, not both');
  if (http !== undefined) {
    let url: URL;
    try {
      url = new URL(http);
    } catch {
      throw new ProbeUsageError(`--http needs an http(s) URL, got '${http}'`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new ProbeUsageError(`--http needs an http(s) URL, got '${url.protocol}' scheme`);
    }
    return { kind: 'http', url: url.toString(), ...(connection ? { connection } : {}) };
  }
  if (stdio !== undefined) return { kind: 'stdio', ...splitCommandLine(stdio) };
  throw new ProbeUsageError('no target: give --http <url> or --stdio "<command line>"');
}

/** Parses `scan` arguments; `env` supplies the identity variables. Throws {@link ProbeUsageError}. */
export function parseScanArgs(argv: readonly string[], env: NodeJS.ProcessEnv): ScanArgs | 'help' {
  let values: ReturnType<
    typeof parseArgs<{ options: typeof SCAN_OPTIONS; strict: true }>
  >['values'];
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: SCAN_OPTIONS,
      strict: true,
      allowPositionals: false,
    }));
  } catch (err) {
    throw new ProbeUsageError(parseArgsMessage(err));
  }
  if (values.help) return 'help';
  const format = values.format ?? 'text';
  if (!isReportFormat(format))
    throw new ProbeUsageError(`unknown --format '${format}' (${REPORT_FORMATS.join(', ')})`);
  const evidence = values.evidence ?? 'summary';
  if (!(EVIDENCE_MODES as readonly string[]).includes(evidence)) {
    throw new ProbeUsageError(`unknown --evidence '${evidence}' (${EVIDENCE_MODES.join(', ')})`);
  }
  const probes: Probe[] = [];
  for (const id of values.probe ?? []) {
    const probe = findProbe(id);
    if (!probe)
      throw new ProbeUsageError(
        `unknown probe '${id}' (${PROBES.map((p) => p.id).join(', ') || 'none registered'})`,
      );
    if (!probes.includes(probe)) probes.push(probe);
  }
  const key = values['principal-meta-key'] ?? DEFAULT_PRINCIPAL_META_KEY;
  if (key.length === 0) throw new ProbeUsageError('--principal-meta-key must not be empty');
  const a = values['identity-a'] ?? env.STATEGUARD_IDENTITY_A;
  const b = values['identity-b'] ?? env.STATEGUARD_IDENTITY_B;
  for (const [flag, v] of [
    ['identity-a', a],
    ['identity-b', b],
  ] as const) {
    if (v !== undefined && v.length === 0) throw new ProbeUsageError(`--${flag} must not be empty`);
  }
  if (values.output !== undefined && values.output.length === 0)
    throw new ProbeUsageError('--output needs a file name');
  if (values.baseline !== undefined && values.baseline.length === 0)
    throw new ProbeUsageError('--baseline needs a file name');
  const tgt = target(
    values.http,
    values.stdio,
    connectionPolicy(values['http-connection'], values.http),
  );
  const identityHeader = headerTemplate(values['identity-header']);
  const identityEnv = values['identity-env'];
  if (identityEnv !== undefined && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(identityEnv))
    throw new ProbeUsageError('--identity-env takes an environment variable name, e.g. API_TOKEN');
  if (identityHeader !== undefined && tgt.kind !== 'http')
    throw new ProbeUsageError('--identity-header applies to --http targets only');
  if (identityEnv !== undefined && tgt.kind !== 'stdio')
    throw new ProbeUsageError('--identity-env applies to --stdio targets only');
  // Read before any scan starts: a bad baseline is a usage error, not a finding.
  const baseline = values.baseline !== undefined ? readBaseline(values.baseline) : undefined;
  return {
    target: tgt,
    probes: probes.length > 0 ? probes : PROBES,
    identities: { ...(a !== undefined ? { A: a } : {}), ...(b !== undefined ? { B: b } : {}) },
    principalMetaKey: key,
    ...(identityHeader === undefined ? {} : { identityHeader }),
    ...(identityEnv === undefined ? {} : { identityEnv }),
    includeDestructive: values['include-destructive'] ?? false,
    allowMintedInRisky: values['allow-minted-in-risky'] ?? false,
    timeoutMs: duration('timeout', values.timeout, SCAN_DEFAULTS.timeoutMs),
    deadlineMs: duration('deadline', values.deadline, SCAN_DEFAULTS.deadlineMs),
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
    ...peerTarget(values.peer, values['peer-stdio'], tgt),
    ...(values['expiry-wait'] === undefined
      ? {}
      : { expiryWaitMs: duration('expiry-wait', values['expiry-wait'], 0) }),
    format,
    ...(values.output !== undefined ? { output: values.output } : {}),
    ...(baseline !== undefined ? { baseline } : {}),
    evidence: evidence as EvidenceMode,
    all: values.all ?? false,
    quiet: values.quiet ?? false,
  };
}

/** `Name: value with {identity}` → its parts; a usage error when it is not a header line. */
function headerTemplate(v: string | undefined): { name: string; value: string } | undefined {
  if (v === undefined) return undefined;
  const m = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+):\s*(.*)$/.exec(v);
  if (m === null || !(m[2] ?? '').includes('{identity}'))
    throw new ProbeUsageError(
      "--identity-header takes 'Name: value' with {identity} in the value, e.g. 'X-Api-Key: {identity}'",
    );
  return { name: m[1] as string, value: m[2] as string };
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
  const peer = target(url, stdio, main.kind === 'http' ? main.connection : undefined);
  return { peer };
}
