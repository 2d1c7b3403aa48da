/**
 * The Redis client stays behind `stateguard/redis`: the root barrel never loads it, so a server on
 * one instance pays nothing for it.
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));
const RUNTIME_IMPORT = /^(?:import|export)\s+(?!type\s)[^'";]*?['"]([^'"]+)['"]/gm;

/** Bare specifiers reachable from `entry` through relative runtime imports. */
function bareImports(entry: string): Set<string> {
  const seen = new Set<string>();
  const bare = new Set<string>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const [, specifier] of readFileSync(file, 'utf8').matchAll(RUNTIME_IMPORT)) {
      if (specifier === undefined) continue;
      if (specifier.startsWith('.'))
        visit(resolve(dirname(file), specifier.replace(/\.js$/, '.ts')));
      else bare.add(specifier);
    }
  };
  visit(resolve(SRC, entry));
  return bare;
}

describe('the stateguard/redis subpath', () => {
  it('keeps ioredis out of the root barrel', () => {
    const root = bareImports('index.ts');
    expect(root.has('node:crypto')).toBe(true);
    expect(root.has('ioredis')).toBe(false);
  });

  it('is where ioredis is loaded, without child processes or HTTP', () => {
    const redis = bareImports('redis.ts');
    expect(redis.has('ioredis')).toBe(true);
    for (const name of ['node:child_process', 'node:http', 'node:net']) {
      expect(redis.has(name), name).toBe(false);
    }
  });

  it('is declared in package.json exports', () => {
    const pkg = JSON.parse(readFileSync(resolve(SRC, '../package.json'), 'utf8')) as {
      exports: Record<string, unknown>;
    };
    expect(pkg.exports['./redis']).toEqual({
      types: './dist/redis.d.ts',
      // require(): the ES module where Node.js can load it that way, else an "ESM only" error.
      require: './cjs/redis.cjs',
      default: './dist/redis.js',
    });
  });
});
