/**
 * The package's dist/ as its own build script makes it (`npm run build`: empty dist/, `tsc -p
 * tsconfig.build.json`, the bin made executable), with only tsc's project and outDir pointed at a
 * scratch folder, so the dist/ another test or the developer reads is never rewritten. Two suites
 * need it (test/cli/package, test/package/consumer): the TypeScript build, about 10 CPU-s, is made
 * once for both, and again only when what it is made from changes.
 *
 * A build is named by what it is made from: this run's transpiled source (named by every source
 * file, see built.ts), the tsconfig files, package.json and package-lock.json. The first worker to
 * ask builds it, beside its final name, and renames it into place whole; another worker that asks
 * meanwhile waits for that (bounded). What the build script printed and how it exited are kept with
 * it, for the suites to judge. Builds unused for a day are removed.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  rmdirSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { basename, join } from 'node:path';
import { inject } from 'vitest';
import { REPO_ROOT } from './spawn-stdio.js';
import { removeStale, SCRATCH } from './scratch.js';

const PREFIX = 'package-build-';
/** The part of the build script this build points elsewhere. */
export const TSC = 'tsc -p tsconfig.build.json';
/** Longest a build may take, and longest another worker waits for it. */
const BUILD_MS = 180_000;

/** A build of the package, and how its build script ended. */
export interface PackageBuild {
  /** The folder that holds `dist/` (nothing else of the package: copy what a suite needs). */
  readonly dir: string;
  /** The build script's exit status (0: built). */
  readonly status: number | null;
  /** What the build script printed, stdout then stderr. */
  readonly output: string;
}

const pkg = (): { scripts: Record<string, string> } =>
  JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  };

/** The build script as written, with only tsc's project and outDir pointed at `dir`. */
export function buildCommand(dir: string): string {
  const script = pkg().scripts['build'] ?? '';
  const tsc = join(REPO_ROOT, 'node_modules', '.bin', 'tsc');
  return script.replace(
    TSC,
    [tsc, '-p', join(REPO_ROOT, 'tsconfig.build.json'), '--outDir', join(dir, 'dist')]
      .map((part) => JSON.stringify(part))
      .join(' '),
  );
}

function buildKey(): string {
  const hash = createHash('sha256').update(basename(inject('builtRoot')));
  for (const file of ['tsconfig.json', 'tsconfig.build.json', 'package.json', 'package-lock.json'])
    hash
      .update(`${file}\0`)
      .update(existsSync(join(REPO_ROOT, file)) ? readFileSync(join(REPO_ROOT, file)) : '');
  return hash.digest('hex').slice(0, 16);
}

const RESULT = 'build-result.json';

function read(dir: string): PackageBuild {
  const now = new Date();
  utimesSync(dir, now, now); // in use: not stale
  const { status, output } = JSON.parse(readFileSync(join(dir, RESULT), 'utf8')) as {
    status: number | null;
    output: string;
  };
  return { dir, status, output };
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The package built by its build script from the current source: made once, then reused. */
export async function packageBuild(): Promise<PackageBuild> {
  mkdirSync(SCRATCH, { recursive: true });
  removeStale(PREFIX);
  const dir = join(SCRATCH, `${PREFIX}${buildKey()}`);
  const lock = `${dir}.lock`;
  const until = Date.now() + BUILD_MS;
  while (!existsSync(join(dir, RESULT))) {
    try {
      mkdirSync(lock);
    } catch {
      // Another worker is building it: wait for its result, or for a lock left by a build that died.
      if (Date.now() > until) throw new Error(`no package build within ${BUILD_MS} ms (${lock})`);
      try {
        if (Date.now() - statSync(lock).mtimeMs > BUILD_MS) rmdirSync(lock);
      } catch {
        // Gone meanwhile: the build finished.
      }
      await sleep(250);
      continue;
    }
    try {
      // A failed build is not kept: it is reported to this suite, and the next one builds again.
      if (!existsSync(join(dir, RESULT))) {
        const failed = build(dir);
        if (failed !== undefined) return failed;
      }
    } finally {
      rmdirSync(lock);
    }
  }
  return read(dir);
}

/** Builds into `dir`; a build that failed is left aside and returned. */
function build(dir: string): PackageBuild | undefined {
  const aside = `${dir}.${process.pid}.tmp`;
  rmSync(aside, { recursive: true, force: true });
  mkdirSync(aside);
  const built = spawnSync(buildCommand(aside), {
    cwd: aside,
    shell: true,
    encoding: 'utf8',
    timeout: BUILD_MS,
  });
  const output = `${built.stdout ?? ''}${built.stderr ?? ''}${built.error?.message ?? ''}`;
  if (built.status !== 0) return { dir: aside, status: built.status, output };
  writeFileSync(join(aside, RESULT), JSON.stringify({ status: built.status, output }));
  rmSync(dir, { recursive: true, force: true });
  renameSync(aside, dir);
  return undefined;
}
