/**
 * `stateguard watch`: a transparent proxy between a real client and a real server that records the
 * traffic to a capture and judges it when the run ends; `watch wrap` / `watch unwrap` put it in
 * front of the stdio servers of a client configuration and take it out again.
 */
import { argsOrExit, stderrLine } from './subcommand.js';
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { ProbeUsageError } from '../errors.js';
import { parseArgsMessage } from '../parse-args-message.js';
import { DEFAULT_PRINCIPAL_META_KEY } from '../probe/target/session-options.js';
import {
  EVIDENCE_MODES,
  isReportFormat,
  REPORT_FORMATS,
  type EvidenceMode,
} from '../report/index.js';
import { summaryLine } from '../report/text.js';
import type { WatchRun } from '../watch/command.js';
import { parseDuration } from './duration.js';
import { checkWritable } from './files.js';
import { splitCommandLine } from './command-line.js';
import { exitCodeOf } from './scan-common.js';

export const WATCH_HELP = `Usage:
  stateguard watch --stdio "<server command>" --capture <file> [options]
  stateguard watch --http <upstream url> --listen <host:port> --capture <file> [options]
  stateguard watch wrap <client config> [--server NAME] --capture-dir <dir>
  stateguard watch unwrap <client config> [--server NAME]

Sits between a real MCP client and a real server, relays every byte unchanged, records each
message to a capture (one JSON line per message; tokens, principals and requestState digested
under a key drawn for this capture), and judges the traffic when the run ends: the findings of
'stateguard check <capture>'.

  --stdio "<cmd>"          start this server (no shell) and relay the client's stdin/stdout to it;
                           the run ends when the server exits, with its exit code
  --http <url>             forward every request to this upstream (same path, headers, body)
  --listen <host:port>     where the HTTP proxy listens (port 0: any free port; the URL is printed
                           on stderr as '[watch] listening <url>'); the run ends on SIGINT/SIGTERM,
                           with scan's exit codes
  --capture <file>         the capture to write (replaced if it exists; mode 0600)
  --principal-meta-key <k> the params._meta key naming the principal over stdio
                           (default ${DEFAULT_PRINCIPAL_META_KEY})
  --identity-header <name> an HTTP header naming the principal (besides Authorization)
  --max-age <d>            a state or handle accepted this long after it was issued is a finding
  --format <f>             ${REPORT_FORMATS.join(', ')} (default text)
  --output <file>          write the report there (stdio: otherwise a summary line on stderr)
  --evidence <m>           ${EVIDENCE_MODES.join(', ')} (default summary)
  -h, --help               this help
`;

function hostPort(value: string): { host: string; port: number } {
  const m = /^(\[[^\]]+\]|[^:]+):(\d{1,5})$/.exec(value);
  const port = Number(m?.[2]);
  if (m === null || port > 65535)
    throw new ProbeUsageError(`--listen needs <host:port>, e.g. 127.0.0.1:8080; got '${value}'`);
  return { host: (m[1] as string).replace(/^\[|\]$/g, ''), port };
}

function upstreamUrl(value: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ProbeUsageError(`--http needs an http(s) URL, got '${value}'`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new ProbeUsageError(`--http needs an http(s) URL, got '${url.protocol}' scheme`);
  return url;
}

/** Parses `watch`'s flags (not `wrap`/`unwrap`). */
export function parseWatchArgs(argv: readonly string[]): WatchRun | 'help' {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        stdio: { type: 'string' },
        http: { type: 'string' },
        listen: { type: 'string' },
        capture: { type: 'string' },
        'principal-meta-key': { type: 'string' },
        'identity-header': { type: 'string' },
        'max-age': { type: 'string' },
        format: { type: 'string' },
        output: { type: 'string' },
        evidence: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    throw new ProbeUsageError(parseArgsMessage(error));
  }
  if (values.help) return 'help';
  if ((values.stdio === undefined) === (values.http === undefined))
    throw new ProbeUsageError('give either --stdio "<server command>" or --http <upstream url>');
  if (values.capture === undefined) throw new ProbeUsageError('--capture <file> is required');
  checkWritable('capture', values.capture);
  if (values.output !== undefined) checkWritable('output', values.output);
  const format = values.format ?? 'text';
  if (!isReportFormat(format))
    throw new ProbeUsageError(`unknown --format '${format}' (${REPORT_FORMATS.join(', ')})`);
  const evidence = values.evidence ?? 'summary';
  if (!(EVIDENCE_MODES as readonly string[]).includes(evidence))
    throw new ProbeUsageError(`unknown --evidence '${evidence}' (${EVIDENCE_MODES.join(', ')})`);
  let target: WatchRun['target'];
  let display: string;
  if (values.stdio !== undefined) {
    if (values.listen !== undefined) throw new ProbeUsageError('--listen applies to --http only');
    const { command, args } = splitCommandLine(values.stdio);
    target = { kind: 'stdio', command, args };
    display = values.stdio;
  } else {
    if (values.listen === undefined) throw new ProbeUsageError('--http needs --listen <host:port>');
    target = {
      kind: 'http',
      upstream: upstreamUrl(values.http as string),
      ...hostPort(values.listen),
    };
    display = values.http as string;
  }
  return {
    target,
    display,
    capture: values.capture,
    principal: {
      metaKey: values['principal-meta-key'] ?? DEFAULT_PRINCIPAL_META_KEY,
      ...(values['identity-header'] === undefined
        ? {}
        : { header: values['identity-header'].toLowerCase() }),
    },
    ...(values['max-age'] === undefined
      ? {}
      : { maxAgeMs: parseDuration('max-age', values['max-age']) }),
    format,
    ...(values.output === undefined ? {} : { output: values.output }),
    evidence: evidence as EvidenceMode,
  };
}

/** Runs `stateguard watch`; resolves with the exit code. */
export async function runWatchCommand(argv: readonly string[]): Promise<number> {
  const err = stderrLine;
  const [first, ...rest] = argv;
  if (first === 'wrap' || first === 'unwrap') {
    const { runWrapCommand } = await import('./wrap-command.js');
    return runWrapCommand(first, rest, err);
  }
  const read = await argsOrExit('watch', WATCH_HELP, () => parseWatchArgs(argv));
  if ('exit' in read) return read.exit;
  const run = read.args;
  if (run.target.kind === 'http' && !/^(127\.|::1$|localhost$)/.test(run.target.host))
    err(
      `stateguard watch: warning: --listen ${run.target.host} is reachable from other machines; the proxy forwards their requests, credentials included`,
    );
  // The proxy and its judge load once the arguments are valid: a usage error or --help does not.
  const { renderWatchReport, runWatch } = await import('../watch/command.js');
  const { report, exitCode } = await runWatch(run, err);
  if (typeof report === 'string') {
    err(`stateguard watch: the capture cannot be judged: ${report}`);
    return exitCode ?? 2;
  }
  const rendered = renderWatchReport(report, run);
  if (run.output !== undefined) {
    try {
      writeFileSync(run.output, rendered);
    } catch (error) {
      err(
        `stateguard watch: cannot write --output: ${(error as NodeJS.ErrnoException).code ?? 'error'}`,
      );
    }
  } else if (run.target.kind === 'http') process.stdout.write(rendered);
  err(`stateguard watch: ${summaryLine(report)}; capture ${run.capture}`);
  for (const p of report.probes.filter((x) => x.verdict === 'confirmed'))
    err(`stateguard watch: ${p.id}: ${p.reason}`);
  // stdio: the client sees the server's exit, as without the proxy.
  return exitCode ?? exitCodeOf(report);
}
