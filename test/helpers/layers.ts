/**
 * The scanner's layers, judged from its files' imports: each folder of `src/probe/` may import only
 * the folders before it in {@link LAYERS} (and its own), and the library parts below the scanner.
 * Pure functions over file paths and source text, so a test can judge a planted back-edge without
 * touching `src/`.
 */
import { posix } from 'node:path';
import ts from 'typescript';

/** The scanner's folders in pipeline order: each imports only the ones before it. */
export const LAYERS = [
  'model',
  'evidence',
  'target',
  'plan',
  'driver',
  'surface',
  'experiments',
  'probes',
  'runner',
] as const;

/**
 * What the scanner may import outside `src/probe/` (paths relative to `src/`): the library parts
 * that import no scanner code. The CLI, the reporters, the Action and `watch` sit above it.
 */
export const BELOW_THE_SCANNER = ['errors.ts', 'seal/', 'bind/', 'ledger/'] as const;

/** One file of the scanner: its path relative to `src/probe/` (posix) and its source text. */
export interface ScannerFile {
  readonly path: string;
  readonly source: string;
}

/**
 * Every module specifier `source` names: static `import` and `export … from` (type-only ones too),
 * dynamic `import()`, and `import('…')` in a type.
 */
export function specifiersOf(source: string): string[] {
  return ts.preProcessFile(source, true, true).importedFiles.map((f) => f.fileName);
}

const layerOf = (path: string): number => {
  const [top, ...rest] = path.split('/');
  return rest.length === 0 ? -1 : (LAYERS as readonly string[]).indexOf(top ?? '');
};

/**
 * Every import of `files` that breaks the layering, one sentence each (none: it holds). A file at
 * the root of `src/probe/` or in a folder that is no layer breaks it by being there.
 */
export function layerBreaches(files: readonly ScannerFile[]): string[] {
  const out: string[] = [];
  for (const file of files) {
    const from = layerOf(file.path);
    if (from < 0) {
      out.push(`${file.path} sits outside the layers (${LAYERS.join(', ')})`);
      continue;
    }
    for (const spec of specifiersOf(file.source)) {
      if (!spec.startsWith('.')) continue;
      const target = posix.normalize(posix.join(posix.dirname(file.path), spec));
      if (target.startsWith('../')) {
        const inSrc = target.slice(3);
        const below = BELOW_THE_SCANNER.some((b) =>
          b.endsWith('/') ? inSrc.startsWith(b) : inSrc.replace(/\.js$/, '.ts') === b,
        );
        if (!below) out.push(`${file.path} imports ${spec}, outside the scanner and not below it`);
        continue;
      }
      const to = layerOf(target);
      if (to < 0) out.push(`${file.path} imports ${spec}, which sits outside the layers`);
      else if (to > from)
        out.push(`${file.path} (${LAYERS[from]}) imports ${spec} (${LAYERS[to]}), a later layer`);
    }
  }
  return out;
}

/**
 * A probe file whose path (`probes/state/tamper.ts`) is not the id it declares (`state/tamper`):
 * the sentence that says so, or `undefined` when they agree.
 */
export function misnamedProbe(file: ScannerFile): string | undefined {
  const ids = [...file.source.matchAll(/^\s*id: '([^']+)',$/gm)].map((m) => m[1]);
  const expected = file.path.replace(/^probes\//, '').replace(/\.ts$/, '');
  if (ids.length !== 1) return `${file.path} declares ${ids.length} ids`;
  return ids[0] === expected ? undefined : `${file.path} declares id '${ids[0]}'`;
}
