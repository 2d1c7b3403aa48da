/**
 * What `npm pack` ships is usable: every entry point and the bin lie under "files", the package is
 * built before it is packed (a clean clone has no `dist/`), and the built bin runs as a command.
 *
 * The build is checked by running the package's own build script into a scratch folder, so it runs
 * on a fresh clone too (it used to be skipped whenever `dist/` had not been built) and never rewrites
 * the `dist/` another test or the developer may be reading.
 */
import { spawnSync } from 'node:child_process';
import {
  accessSync,
  constants,
  cpSync,
  mkdtempSync,
  mkdirSync,
  readFileSync,
  rmSync,
} from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageBuild, TSC } from '../helpers/package-build.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const pkg = JSON.parse(readFileSync(resolve(ROOT, 'package.json'), 'utf8')) as {
  bin: Record<string, string>;
  exports: Record<string, string | Record<string, string>>;
  scripts: Record<string, string>;
};
const BIN = pkg.bin['stateguard'] ?? '';

describe('the packed package', () => {
  it('builds in prepare: before packing, and when npm installs it from a git URL', () => {
    // npm runs `prepare` (not `prepack`) for a git dependency, after installing its devDependencies,
    // and also on `npm pack` and a plain `npm install`/`npm ci` in the clone. One build script for
    // all of them; a `prepack` beside it would build twice on `npm pack`.
    expect(pkg.scripts['prepare']).toBe('npm run build');
    expect(pkg.scripts['prepack']).toBeUndefined();
  });

  it('starts the CLI source with a node shebang, which the build keeps', () => {
    const source = readFileSync(resolve(ROOT, 'src/cli/main.ts'), 'utf8');
    expect(source.startsWith('#!/usr/bin/env node\n')).toBe(true);
  });

  describe('built by its build script', () => {
    let scratch: string;
    /** What `npm pack` puts in the tarball from the scratch build, as npm reads "files". */
    let packed: Set<string>;
    const shipped = (path: string): boolean => packed.has(path.replace(/^\.\//, ''));

    beforeAll(async () => {
      // Inside the repository (gitignored), so the built code resolves the package's node_modules.
      mkdirSync(join(ROOT, '.stateguard-tmp'), { recursive: true });
      scratch = mkdtempSync(join(ROOT, '.stateguard-tmp', 'package-'));
      // The build script as written (it empties dist/ first, so nothing stale is packed), with only
      // tsc's project and outDir pointed at a scratch folder (shared with the consumer suite).
      expect(pkg.scripts['build'] ?? '').toContain(`${TSC} `);
      const built = await packageBuild();
      expect(built.status, built.output).toBe(0);
      cpSync(join(built.dir, 'dist'), join(scratch, 'dist'), { recursive: true });
      for (const f of ['package.json', 'README.md', 'LICENSE', 'cjs', 'templates'])
        cpSync(join(ROOT, f), join(scratch, f), { recursive: true });
      const pack = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
        cwd: scratch,
        encoding: 'utf8',
        timeout: 60_000,
      });
      expect(pack.status, pack.stderr).toBe(0);
      const [listed] = JSON.parse(pack.stdout) as { files: { path: string }[] }[];
      packed = new Set(listed?.files.map((f) => f.path));
    }, 200_000);
    afterAll(() => {
      if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true });
    });

    it('ships every export target and the bin', () => {
      const targets = Object.values(pkg.exports).flatMap((t) =>
        typeof t === 'string' ? [t] : Object.values(t),
      );
      for (const target of [...targets, BIN]) expect(shipped(target), target).toBe(true);
      expect(BIN).toBe('./dist/cli/main.js');
    });

    it('makes the bin executable, with its shebang', () => {
      const built = resolve(scratch, BIN);
      expect(readFileSync(built, 'utf8').startsWith('#!/usr/bin/env node\n')).toBe(true);
      expect(() => accessSync(built, constants.X_OK)).not.toThrow();
    });

    it('runs the built bin as a command', () => {
      const help = spawnSync(resolve(scratch, BIN), ['--help'], {
        encoding: 'utf8',
        timeout: 30_000,
      });
      expect(help.status, help.stderr).toBe(0);
      expect(help.stdout).toMatch(/^stateguard: /);
    });

    it('ships the GitHub Action step action.yml runs, and it starts from the build', () => {
      const step = './dist/action/main.js';
      expect(shipped(step)).toBe(true);
      const run = spawnSync(process.execPath, [resolve(scratch, step)], {
        encoding: 'utf8',
        timeout: 30_000,
        env: { PATH: process.env.PATH },
      });
      expect(run.status, run.stderr).toBe(2);
      expect(run.stdout).toContain('::error title=stateguard::give target');
    });
  });
});
