#!/usr/bin/env node
/**
 * The `stateguard` command. Subcommands are added as they land; usage errors exit 2.
 */
import { visible } from '../report/visible.js';
import { readFileSync } from 'node:fs';

const HELP = `stateguard: seal requestState, bind handles, and scan MCP 2026-07-28 servers

Usage:
  stateguard scan ...     scan an MCP server for state and handle flaws (stateguard scan --help)
  stateguard fixture ...  run a fixture server (stateguard fixture --help)
  stateguard watch ...    sit between a client and a server, record and judge the traffic
                          (stateguard watch --help)
  stateguard check <capture.jsonl>
                          judge a capture recorded by watch, offline (stateguard check --help)
  stateguard --help       show this help
  stateguard --version    print the version
`;

/** A subcommand: its arguments in, its exit code out. */
type Command = (argv: readonly string[]) => Promise<number>;

/** Subcommands, loaded on use: `fixture` does not load the scanner, nor `scan` the fixture. */
const COMMANDS: Record<string, () => Promise<Command>> = {
  scan: async () => (await import('./scan-command.js')).runScanCommand,
  fixture: async () => (await import('../fixture/command.js')).runFixtureCommand,
  check: async () => (await import('./check-command.js')).runCheckCommand,
  watch: async () => (await import('./watch-command.js')).runWatchCommand,
};

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}

/** Runs the command line; resolves with the exit code. */
export async function main(argv: readonly string[]): Promise<number> {
  const [first, ...rest] = argv;
  const command =
    first !== undefined && Object.hasOwn(COMMANDS, first) ? COMMANDS[first] : undefined;
  if (command) return (await command())(rest);
  if (first === undefined) {
    // No arguments is a usage error: the help goes where errors go, and the exit says so.
    process.stderr.write(HELP);
    return 2;
  }
  if (first === '--help' || first === '-h' || first === 'help') {
    process.stdout.write(HELP);
    return 0;
  }
  if (first === '--version' || first === '-v') {
    process.stdout.write(`${version()}\n`);
    return 0;
  }
  process.stderr.write(
    `stateguard: unknown command '${visible(first)}'\nTry 'stateguard --help'.\n`,
  );
  return 2;
}

/**
 * How long the process may linger once the command is done. Everything it started is stopped by
 * then; a pipe some leftover process of the target still holds must not keep the CLI alive.
 */
const LINGER_MS = 1000;

process.exitCode = await main(process.argv.slice(2));
setTimeout(() => process.exit(), LINGER_MS).unref();
