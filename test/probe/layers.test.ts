/**
 * The scanner's folders follow its pipeline, each importing only the ones before it (issue 36):
 * model → evidence → target → plan → driver → surface → experiments → probes → runner. No file
 * stays at the root of `src/probe/`, and a probe file is named by its id.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  LAYERS,
  layerBreaches,
  misnamedProbe,
  specifiersOf,
  type ScannerFile,
} from '../helpers/layers.js';
import { PROBES } from '../../src/probe/runner/registry.js';

const ROOT = new URL('../../src/probe/', import.meta.url).pathname;

function scannerFiles(dir = ROOT): ScannerFile[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return scannerFiles(path);
    if (!e.name.endsWith('.ts')) return [];
    return [
      { path: relative(ROOT, path).split(sep).join('/'), source: readFileSync(path, 'utf8') },
    ];
  });
}

describe('the scanner layers', () => {
  const files = scannerFiles();

  it('reads every folder of src/probe as a layer, and every layer has files', () => {
    const folders = new Set(files.map((f) => f.path.split('/')[0]));
    expect([...folders].sort()).toEqual([...LAYERS].sort());
    expect(files.length).toBeGreaterThan(50);
  });

  it('has each folder import only the folders before it, and no file at the root', () => {
    expect(layerBreaches(files)).toEqual([]);
  });

  it('names each probe file by its id, and registers every one of them', () => {
    const probes = files.filter((f) => f.path.startsWith('probes/'));
    expect(probes.map(misnamedProbe).filter((m) => m !== undefined)).toEqual([]);
    expect(probes.map((f) => f.path.replace(/^probes\/|\.ts$/g, '')).sort()).toEqual(
      PROBES.map((p) => p.id).sort(),
    );
  });
});

describe('the layer judgement (negative controls on planted input)', () => {
  const ok: ScannerFile = {
    path: 'surface/recipes.ts',
    source:
      "import { x } from '../driver/rounds.js';\nimport type { Y } from '../model/wire.js';\n",
  };

  it('reads static, type-only, re-exported and dynamic imports', () => {
    const source = [
      "import { a } from './a.js';",
      "import type {\n  B,\n} from '../b.js';",
      "export { c } from './c.js';",
      "export * from './d.js';",
      "const e = await import('./e.js');",
      "type F = import('./f.js').F;",
    ].join('\n');
    expect(specifiersOf(source).sort()).toEqual(
      ['./a.js', '../b.js', './c.js', './d.js', './e.js', './f.js'].sort(),
    );
  });

  it('passes imports down the pipeline, into the same folder and below the scanner', () => {
    const same: ScannerFile = {
      path: 'runner/run.ts',
      source: "import { a } from './call-gate.js';\nimport { b } from '../../errors.js';\n",
    };
    expect(layerBreaches([ok, same])).toEqual([]);
  });

  it('finds a planted back-edge, whichever form the import takes', () => {
    const planted: ScannerFile[] = [
      { path: 'driver/rounds.ts', source: "import { recipe } from '../surface/recipes.js';" },
      { path: 'model/wire.ts', source: "import type { Redactor } from '../evidence/evidence.js';" },
      { path: 'plan/classify.ts', source: "export { round } from '../driver/rounds.js';" },
      { path: 'probes/state/tamper.ts', source: "const r = await import('../../runner/run.js');" },
    ];
    const breaches = layerBreaches([ok, ...planted]);
    expect(breaches).toHaveLength(4);
    expect(breaches[0]).toContain(
      'driver/rounds.ts (driver) imports ../surface/recipes.js (surface)',
    );
  });

  it('finds a file at the root, in an unknown folder, or importing the scanner’s users', () => {
    expect(
      layerBreaches([
        { path: 'types.ts', source: '' },
        { path: 'trials/rounds.ts', source: '' },
        { path: 'runner/scan.ts', source: "import { x } from '../../cli/main.js';" },
        { path: 'surface/survey.ts', source: "import { y } from '../types.js';" },
      ]),
    ).toHaveLength(4);
  });

  it('finds a probe file not named by its id', () => {
    expect(
      misnamedProbe({ path: 'probes/state/tamper.ts', source: "  id: 'state/tamper',\n" }),
    ).toBe(undefined);
    expect(
      misnamedProbe({ path: 'probes/state-tamper.ts', source: "  id: 'state/tamper',\n" }),
    ).toContain("declares id 'state/tamper'");
  });
});
