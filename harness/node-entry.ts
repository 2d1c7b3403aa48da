/**
 * How the harness starts one of its own entry files as a child `node` process. Built (the harness
 * build, `dist-harness/`), the entry is plain JavaScript beside its caller. From source, the entry is
 * TypeScript: the test suite names its own build of the repository in {@link SUITE_BUILD_ENV} (see
 * test/helpers/built.ts), and the entry runs from there as JavaScript, at a tenth of the CPU time
 * `node --import tsx` takes to load the same modules; with no such build, it runs through tsx.
 */
import { existsSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The variable the test suite names its build's root in (a copy of the repository as `.js`). */
export const SUITE_BUILD_ENV = 'STATEGUARD_SUITE_BUILD';

const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * The arguments to `node` that run the entry `relativeJs` (written as the built file, `./main.js`),
 * relative to the module at `callerUrl` (its `import.meta.url`).
 */
export function nodeEntry(callerUrl: string, relativeJs: string): string[] {
  const entry = fileURLToPath(new URL(relativeJs, callerUrl));
  if (!callerUrl.endsWith('.ts')) return [entry];
  return sourceEntry(entry.replace(/\.js$/, '.ts'));
}

/**
 * The arguments to `node` that run the TypeScript file `source` (a path in the repository, absolute
 * or relative to its root): from the suite's build where it holds the file, else through tsx.
 */
export function sourceEntry(source: string): string[] {
  const build = process.env[SUITE_BUILD_ENV];
  if (build) {
    const built = join(build, relative(REPO_ROOT, resolve(REPO_ROOT, source))).replace(
      /\.ts$/,
      '.js',
    );
    if (existsSync(built)) return [built];
  }
  return ['--import', 'tsx', source];
}
