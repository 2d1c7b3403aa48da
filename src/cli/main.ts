#!/usr/bin/env node
/**
 * The `stateguard` command. Subcommands are added as they land; usage errors exit 2.
 */
import { readFileSync } from 'node:fs';

const HELP = `stateguard: seal requestState, bind handles, and scan MCP 2026-07-28 servers

Usage:
  stateguard --help       show this help
  stateguard --version    print the version
`;

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}

export function main(argv: readonly string[]): number {
  const [first] = argv;
  if (first === undefined || first === '--help' || first === '-h' || first === 'help') {
    process.stdout.write(HELP);
    return 0;
  }
  if (first === '--version' || first === '-v') {
    process.stdout.write(`${version()}\n`);
    return 0;
  }
  process.stderr.write(`stateguard: unknown command '${first}'\nTry 'stateguard --help'.\n`);
  return 2;
}

process.exitCode = main(process.argv.slice(2));
