/**
 * Every export documented (issue 35): docs/library.md's "Every export" section names, per entry point,
 * exactly what that entry point exports. An export added without a row, or a row left behind after
 * an export was removed, fails here.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/spawn-stdio.js';

/** The published specifiers and the sources their `exports` entries are built from. */
const ENTRY_POINTS: Record<string, string> = {
  stateguard: 'src/index.ts',
  'stateguard/errors': 'src/errors.ts',
  'stateguard/sdk': 'src/sdk/index.ts',
  'stateguard/redis': 'src/redis.ts',
};

/** Every name an entry point exports, values and types alike. */
function exportsOf(files: readonly string[]): Map<string, string[]> {
  const paths = files.map((file) => join(REPO_ROOT, file));
  const program = ts.createProgram(paths, {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    strict: true,
    noEmit: true,
    skipLibCheck: true,
  });
  const checker = program.getTypeChecker();
  const result = new Map<string, string[]>();
  files.forEach((file, index) => {
    const source = program.getSourceFile(paths[index] ?? '');
    const module = source === undefined ? undefined : checker.getSymbolAtLocation(source);
    result.set(
      file,
      module === undefined ? [] : checker.getExportsOfModule(module).map((s) => s.name),
    );
  });
  return result;
}

/** The names in backticks in the first column of each `### \`<specifier>\`` table of "Every export". */
export function documentedExports(markdown: string): Map<string, Set<string>> {
  const start = markdown.indexOf('\n## Every export\n');
  if (start < 0) return new Map();
  const rest = markdown.slice(start + 1);
  const end = rest.indexOf('\n## ', 1);
  const section = end < 0 ? rest : rest.slice(0, end);
  const tables = new Map<string, Set<string>>();
  let current: Set<string> | undefined;
  for (const line of section.split('\n')) {
    const heading = /^### `([^`]+)`\s*$/.exec(line);
    if (heading?.[1] !== undefined) {
      current = new Set();
      tables.set(heading[1], current);
      continue;
    }
    if (current === undefined || !line.startsWith('|')) continue;
    const first = line.split(/(?<!\\)\|/)[1] ?? '';
    for (const match of first.matchAll(/`([A-Za-z_$][\w$]*)`/g)) current.add(match[1] ?? '');
  }
  return tables;
}

const LIBRARY_MD = readFileSync(join(REPO_ROOT, 'docs/library.md'), 'utf8');
const exported = exportsOf(Object.values(ENTRY_POINTS));
const documented = documentedExports(LIBRARY_MD);

describe('docs/library.md documents every export', () => {
  it('lists the exports it is about', () => {
    expect([...documented.keys()].sort()).toEqual(Object.keys(ENTRY_POINTS).sort());
    // The names the issue found undocumented.
    const root = exported.get('src/index.ts') ?? [];
    for (const name of [
      'createTaskGuard',
      'TaskNotFoundError',
      'handleErrorText',
      'handleStoreKey',
    ]) {
      expect(root).toContain(name);
    }
  });

  for (const [specifier, file] of Object.entries(ENTRY_POINTS)) {
    it(`names each export of ${specifier} (${file}) in its table, and nothing else`, () => {
      const names = [...(exported.get(file) ?? [])].sort();
      expect(names.length).toBeGreaterThan(0);
      const rows = documented.get(specifier) ?? new Set<string>();
      expect(
        names.filter((name) => !rows.has(name)),
        'exported, not in the table',
      ).toEqual([]);
      expect(
        [...rows].filter((name) => !names.includes(name)).sort(),
        'in the table, not exported',
      ).toEqual([]);
    });
  }

  it('fails on a table that leaves an export out', () => {
    const trimmed = LIBRARY_MD.replace(/^\| `handleStoreKey` .*\n/m, '');
    expect(trimmed).not.toBe(LIBRARY_MD);
    expect(documentedExports(trimmed).get('stateguard')?.has('handleStoreKey')).toBe(false);
  });
});
