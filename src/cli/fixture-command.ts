/**
 * `stateguard fixture`: run one of the fixture twins on stdio or Streamable HTTP.
 *
 *     stateguard fixture --mode <mode> --transport stdio|http [--port N] [--principal-meta-key K]
 *
 * HTTP prints `[fixture] listening <url>` on stdout and runs until SIGINT/SIGTERM. stdio prints
 * `[fixture] ready` on stderr and runs until stdin closes. Either way, diagnostics (refused handles
 * and states, `archive_workspace` calls) go to stderr.
 */
import { parseArgs } from 'node:util';
import { isMode, MODES, type Mode } from '../fixture/flaws.js';
import { startFixtureHttp } from '../fixture/http.js';
import { stderrLog } from '../fixture/log.js';
import { serveFixtureStdio } from '../fixture/stdio.js';
import { parseArgsMessage } from './parse-args-message.js';

/** Help text of the subcommand. */
export const FIXTURE_HELP = `Usage: stateguard fixture --mode <mode> [--transport stdio|http] [--port N] [--principal-meta-key K]

Runs a deliberately flawed (or fixed) MCP 2026-07-28 server to scan.
  --mode                ${MODES.join(' | ')}
  --transport           stdio (default) or http (127.0.0.1 only; the bearer token is the principal)
  --port                HTTP port, default 0 (any free port; the URL is printed on stdout)
  --principal-meta-key  stdio: the params._meta key naming the principal
                        (default io.modelcontextprotocol/principal; absent means anonymous)
`;

/** Parsed options of the subcommand. */
export interface FixtureCommandOptions {
  mode: Mode;
  transport: 'stdio' | 'http';
  port: number;
  principalMetaKey?: string;
}

/** Parse the subcommand's arguments; a string is a usage error (exit 2), `'help'` asks for help. */
export function parseFixtureArgs(argv: readonly string[]): FixtureCommandOptions | 'help' | string {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      strict: true,
      allowPositionals: false,
      options: {
        mode: { type: 'string' },
        transport: { type: 'string', default: 'stdio' },
        port: { type: 'string' },
        'principal-meta-key': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    return parseArgsMessage(error);
  }
  if (values.help) return 'help';
  if (values.mode === undefined) return 'missing --mode';
  if (!isMode(values.mode)) return `unknown mode '${values.mode}' (one of: ${MODES.join(', ')})`;
  const { transport } = values;
  if (transport !== 'stdio' && transport !== 'http') {
    return `unknown transport '${transport}' (stdio or http)`;
  }
  if (values.port !== undefined && transport !== 'http') {
    return '--port applies only to --transport http';
  }
  const portText = values.port ?? '0';
  const port = Number(portText);
  if (!/^\d+$/.test(portText) || !Number.isInteger(port) || port > 65535) {
    return `invalid --port '${portText}'`;
  }
  const key = values['principal-meta-key'];
  if (key !== undefined && key.length === 0) return 'empty --principal-meta-key';
  return { mode: values.mode, transport, port, principalMetaKey: key };
}

/**
 * Run the subcommand. Resolves with the exit code once the server stops (stdin closed, or a
 * signal on HTTP); usage errors resolve 2 at once.
 */
export async function runFixtureCommand(argv: readonly string[]): Promise<number> {
  const parsed = parseFixtureArgs(argv);
  if (parsed === 'help') {
    process.stdout.write(FIXTURE_HELP);
    return 0;
  }
  if (typeof parsed === 'string') {
    process.stderr.write(`stateguard fixture: ${parsed}\nTry 'stateguard fixture --help'.\n`);
    return 2;
  }
  const { mode, principalMetaKey } = parsed;
  if (parsed.transport === 'stdio') {
    const running = serveFixtureStdio({ mode, principalMetaKey });
    await new Promise<void>((resolve) => {
      process.stdin.once('end', resolve);
      process.stdin.once('close', resolve);
    });
    await running.close();
    return 0;
  }
  const running = await startFixtureHttp({
    mode,
    principalMetaKey,
    port: parsed.port,
    log: stderrLog,
  });
  // Listen for the signals before announcing the URL: a caller may stop us as soon as it reads it.
  const stopped = new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  process.stdout.write(`[fixture] listening ${running.url}\n`);
  process.stderr.write(`[fixture] ready (${mode})\n`);
  await stopped;
  await running.close();
  return 0;
}
