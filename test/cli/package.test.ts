/**
 * What `npm pack` ships is usable: every entry point and the bin lie under "files", the package is
 * built before it is packed (a clean clone has no `dist/`), and the built bin runs as a command.
 */
import { accessSync, constants, existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const pkg = JSON.parse(readFileSync(resolve(ROOT, 'package.json'), 'utf8')) as {
  bin: Record<string, string>;
  files: string[];
  exports: Record<string, string | Record<string, string>>;
  scripts: Record<string, string>;
};
const BIN = pkg.bin['stateguard'] ?? '';
const shipped = (path: string): boolean =>
  pkg.files.some((dir) => path.replace(/^\.\//, '').startsWith(`${dir}/`)) ||
  path === './package.json';

describe('the packed package', () => {
  it('ships every export target and the bin', () => {
    const targets = Object.values(pkg.exports).flatMap((t) =>
      typeof t === 'string' ? [t] : Object.values(t),
    );
    for (const target of [...targets, BIN]) expect(shipped(target), target).toBe(true);
    expect(BIN).toBe('./dist/cli/main.js');
  });

  it('builds before packing, so a clean clone never packs an empty dist', () => {
    expect(pkg.scripts['prepack']).toBe('npm run build');
  });

  it('starts the CLI source with a node shebang, which the build keeps', () => {
    const source = readFileSync(resolve(ROOT, 'src/cli/main.ts'), 'utf8');
    expect(source.startsWith('#!/usr/bin/env node\n')).toBe(true);
  });

  // CI builds before it tests; a tree that was never built has nothing to check here.
  it.skipIf(!existsSync(resolve(ROOT, BIN)))('builds the bin executable, with its shebang', () => {
    const built = resolve(ROOT, BIN);
    expect(readFileSync(built, 'utf8').startsWith('#!/usr/bin/env node\n')).toBe(true);
    expect(() => accessSync(built, constants.X_OK)).not.toThrow();
  });
});
