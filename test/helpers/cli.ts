/**
 * Runs the `stateguard` command line as a real child process, from this run's build of the source
 * (`node <build>/src/cli/main.js …`, see built.ts), with colour off and a hard limit on its life.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { inject } from 'vitest';
import { sourceEntry } from '../../harness/node-entry.js';
import { REPO_ROOT } from './spawn-stdio.js';

/** tsx's loader for `--import`, as a file URL that resolves from any working directory. */
export const TSX_LOADER = pathToFileURL(
  createRequire(join(REPO_ROOT, 'package.json')).resolve('tsx'),
).href;

/**
 * `node` and the arguments that run the TypeScript file `source`: its build where this run's build
 * holds it, else through tsx named by its file URL (so it loads from any working directory).
 */
export function nodeCommand(source: string): string[] {
  return [
    process.execPath,
    ...sourceEntry(source).map((arg) => (arg === 'tsx' ? TSX_LOADER : arg)),
  ];
}

/** Where this run's build (see built.ts) holds a source file of the repository, as JavaScript. */
export function builtPath(source: string): string {
  return join(inject('builtRoot'), source.replace(/\.ts$/, '.js'));
}

/**
 * The CLI entry point of this run's build: plain JavaScript, so `node CLI_MAIN` runs it (and
 * `node --import tsx CLI_MAIN` still does, only slower).
 */
export const CLI_MAIN = builtPath('src/cli/main.ts');

/** `stateguard fixture --mode <mode> --transport stdio` as a command line, for `--stdio`. */
export const fixtureCommand = (mode: string): string =>
  `${process.execPath} ${CLI_MAIN} fixture --mode ${mode} --transport stdio`;

/** How a CLI run ended. */
export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `stateguard <args>` (in `cwd`, the repository by default), killed (SIGKILL) if it outlives `limitMs`. */
export function runCli(
  args: readonly string[],
  env: NodeJS.ProcessEnv = {},
  limitMs = 25_000,
  cwd = REPO_ROOT,
): Promise<CliRun> {
  return runCommand(process.execPath, [CLI_MAIN, ...args], env, limitMs, cwd);
}

/** Runs `file <args>` in the repository, `env` added, killed (SIGKILL) if it outlives `limitMs`. */
export function runCommand(
  file: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv = {},
  limitMs = 25_000,
  cwd = REPO_ROOT,
): Promise<CliRun> {
  return new Promise((resolve) => {
    const child = spawn(file, [...args], {
      cwd,
      env: { ...process.env, NO_COLOR: '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const killer = setTimeout(() => child.kill('SIGKILL'), limitMs);
    child.on('close', (code) => {
      clearTimeout(killer);
      resolve({ code, stdout, stderr });
    });
  });
}

/**
 * How to start the stdio fixture in `mode` from this run's build: `stateguard fixture --transport
 * stdio --mode <mode> …extra`, the shape of `fixtureStdioCommand` without tsx.
 */
export function builtFixtureStdio(
  mode: string,
  extra: readonly string[] = [],
): { command: string; args: string[] } {
  return {
    command: process.execPath,
    args: [CLI_MAIN, 'fixture', '--transport', 'stdio', '--mode', mode, ...extra],
  };
}
