/**
 * The library barrel stays free of Node's process and network modules and of the SDK, so importing
 * `stateguard` never drags in the scanner or a server. The SDK integration lives behind the
 * `stateguard/sdk` subpath, which itself stays transport-agnostic.
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));
const IMPORT = /(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]/g;

/** Every bare specifier reachable from `entry` through relative runtime imports. */
function importGraph(entry: string): { files: string[]; bare: Set<string> } {
  const seen = new Set<string>();
  const bare = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const source = readFileSync(file, 'utf8');
    for (const match of source.matchAll(IMPORT)) {
      // `import type` / `export type` vanish at build time (verbatimModuleSyntax).
      if (/^(?:import|export)\s+type\s/.test(match[0])) continue;
      const specifier = match[1]!;
      if (specifier.startsWith('.'))
        visit(resolve(dirname(file), specifier.replace(/\.js$/, '.ts')));
      else bare.add(specifier);
    }
  };
  visit(resolve(SRC, entry));
  return { files: [...seen], bare };
}

const FORBIDDEN = [
  'node:child_process',
  'child_process',
  'node:http',
  'http',
  'node:https',
  'https',
];

describe('barrel-clean', () => {
  it('keeps node:child_process, node:http and the SDK out of the root barrel', () => {
    const { files, bare } = importGraph('index.ts');
    expect(files.length).toBeGreaterThan(1);
    expect(bare.has('node:crypto')).toBe(true);
    for (const name of FORBIDDEN) expect(bare.has(name), name).toBe(false);
    expect([...bare].filter((s) => s.startsWith('@modelcontextprotocol/'))).toEqual([]);
    expect(files.some((f) => f.includes(`${SRC}sdk`))).toBe(false);
  });

  it('keeps node:child_process and node:http out of stateguard/sdk', () => {
    const { bare } = importGraph('sdk/index.ts');
    expect(bare.has('@modelcontextprotocol/server')).toBe(true);
    for (const name of FORBIDDEN) expect(bare.has(name), name).toBe(false);
  });

  it('notices a forbidden import when one is there', () => {
    const { bare } = importGraph('../harness/examples/main.ts');
    expect(bare.has('node:http')).toBe(true);
  });
});
