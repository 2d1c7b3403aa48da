/**
 * The source as plain JavaScript, for the child processes tests start: vitest's global setup
 * transpiles every file of `src/` (TypeScript's own `transpileModule`, one file at a time: the source
 * is written for isolated modules, so nothing is lost) into a scratch folder inside the repository,
 * where the package's node_modules resolve. A `stateguard` run from there starts in a fraction of
 * the CPU time `node --import tsx` takes to load the same modules from source, and runs the same
 * code: no type checking happens either way (`npm run typecheck` does that).
 *
 * A build is named by what it was made from (every source file's path, size and mtime, and
 * package.json), so an unchanged source is built once and reused by later runs, and a run never
 * reads a build of other source: it is written aside and renamed into place whole. A rerun in watch
 * mode builds again. Builds unused for a day are removed.
 *
 * zod and the official SDK's packages, which every server child loads (the fixture, the twins, the
 * examples), are bundled into the build's `vendor/` (esbuild, the version tsx runs on), and the
 * build's imports of them point there: a child then reads a few files instead of about 120 modules,
 * about 0.08 CPU-s less per start. The same code runs, from one file instead of many.
 */
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import type * as Esbuild from 'esbuild';
import ts from 'typescript';
import type { TestProject } from 'vitest/node';
import { REPO_ROOT } from './spawn-stdio.js';
import { removeStale, SCRATCH } from './scratch.js';

const PREFIX = 'suite-build-';
/** Raised when the build itself changes, so older builds are not reused. */
const BUILD_FORMAT = '5';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The root of this run's build: `package.json`, `src/` and `test/servers/` as `.js` files. */
    builtRoot: string;
  }
}

function* sources(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* sources(path);
    else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) yield path;
  }
}

/**
 * The folders built whole: the package's source, the harness (whose twins tests start as children,
 * see harness/node-entry.ts), and the servers tests start as children.
 */
const ROOTS = ['src', 'harness', 'test/servers'];

/** The source files a build is made of: every file of {@link ROOTS}. */
function rootFiles(): string[] {
  return ROOTS.flatMap((dir) => [...sources(join(REPO_ROOT, dir))]).sort();
}

/**
 * The packages bundled into `<root>/vendor/`, as the source imports them. One bundle with shared
 * chunks, so a child that imports several of them holds one copy of zod and of the SDK's core.
 */
const VENDORED = [
  'zod',
  '@modelcontextprotocol/server',
  '@modelcontextprotocol/server/stdio',
  '@modelcontextprotocol/node',
  '@modelcontextprotocol/client',
] as const;

/**
 * Files whose imports keep node_modules' copies: the twin on the SDK's version 1, which hands its
 * zod schemas to that SDK, and that SDK loads zod from node_modules.
 */
const UNVENDORED = join('harness', 'twins', 'tasks-v1') + '/';

/** A vendored package's bundle, as a file name. */
const vendorName = (spec: string): string => `${spec.replace(/^@/, '').replaceAll('/', '__')}.js`;

/** An import or export of a vendored package, by its exact specifier. */
const VENDORED_IMPORT = new RegExp(
  `(\\bfrom\\s*|\\bimport\\s*\\(\\s*|\\bimport\\s+)(['"])(${VENDORED.map((v) => v.replaceAll('/', '\\/')).join('|')})\\2`,
  'g',
);

/** `code` of the build file `out` with its imports of vendored packages pointed at `<root>/vendor/`. */
function toVendor(code: string, out: string, root: string): string {
  if (relative(root, out).startsWith(UNVENDORED)) return code;
  return code.replace(VENDORED_IMPORT, (_, lead: string, quote: string, spec: string) => {
    const path = relative(dirname(out), join(root, 'vendor', vendorName(spec)));
    return `${lead}${quote}${path.startsWith('.') ? path : `./${path}`}${quote}`;
  });
}

/** Bundles {@link VENDORED} into `<root>/vendor/` with esbuild (a dev dependency, tsx's own). */
function bundleVendored(root: string): void {
  const esbuild = createRequire(join(REPO_ROOT, 'package.json'))('esbuild') as typeof Esbuild;
  const entries = join(root, 'vendor-entries');
  mkdirSync(entries, { recursive: true });
  const entryPoints: Record<string, string> = {};
  for (const spec of VENDORED) {
    const entry = join(entries, vendorName(spec));
    writeFileSync(entry, `export * from '${spec}';\n`);
    entryPoints[vendorName(spec).replace(/\.js$/, '')] = entry;
  }
  esbuild.buildSync({
    entryPoints,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    outdir: join(root, 'vendor'),
    absWorkingDir: REPO_ROOT,
    nodePaths: [join(REPO_ROOT, 'node_modules')],
    logLevel: 'error',
    // Less to parse at each start (about 0.02 CPU-s); names are kept, so errors read the same.
    minifyWhitespace: true,
    minifySyntax: true,
    // The CommonJS the SDK bundles (ajv) requires Node's modules.
    banner: {
      js: "import { createRequire as vendorRequire } from 'node:module'; const require = vendorRequire(import.meta.url);",
    },
  });
  rmSync(entries, { recursive: true, force: true });
}

/**
 * Transpiles every file of {@link ROOTS}, and each file elsewhere in the repository they import
 * (wherever it lives), into `<root>` at the same relative path as `.js`; copies `package.json` to
 * `<root>` (the source reads it as `../../package.json`).
 */
export function buildInto(root: string): void {
  const compilerOptions: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    verbatimModuleSyntax: true,
    sourceMap: false,
  };
  const queue = rootFiles();
  const seen = new Set(queue);
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
    const text = readFileSync(file, 'utf8');
    const out = join(root, relative(REPO_ROOT, file)).replace(/\.ts$/, '.js');
    const { outputText } = ts.transpileModule(text, { compilerOptions, fileName: file });
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, toVendor(outputText, out, root));
    for (const { fileName } of ts.preProcessFile(text, true, true).importedFiles) {
      if (!fileName.startsWith('.') || !fileName.endsWith('.js')) continue;
      const target = join(dirname(file), fileName).replace(/\.js$/, '.ts');
      if (seen.has(target) || !existsSync(target)) continue;
      seen.add(target);
      queue.push(target);
    }
  }
  copyFileSync(join(REPO_ROOT, 'package.json'), join(root, 'package.json'));
  bundleVendored(root);
}

/** Top-level folders whose files a build never imports. */
const NEVER_BUILT = new Set(['test', 'node_modules', 'dist', 'coverage', 'reports']);

/**
 * The files a build's name covers: the roots, and every source file of the other top-level folders
 * (where a root file may import from: a harness folder, say), but no test other than the servers.
 */
function keyFiles(): string[] {
  const others = readdirSync(REPO_ROOT, { withFileTypes: true })
    .filter((e) => e.isDirectory() && !e.name.startsWith('.') && !NEVER_BUILT.has(e.name))
    .filter((e) => !ROOTS.includes(e.name))
    .flatMap((e) => [...sources(join(REPO_ROOT, e.name))]);
  return [...rootFiles(), ...others.sort()];
}

/** What a build of the current source is named: a digest of everything it is made from. */
function buildKey(): string {
  const hash = createHash('sha256').update(BUILD_FORMAT);
  for (const file of keyFiles()) {
    const { size, mtimeMs } = statSync(file);
    hash.update(`${relative(REPO_ROOT, file)}\0${size}\0${mtimeMs}\0`);
  }
  hash.update(readFileSync(join(REPO_ROOT, 'package.json')));
  // The vendored bundles are made from what is installed.
  const lock = join(REPO_ROOT, 'package-lock.json');
  if (existsSync(lock)) hash.update(readFileSync(lock));
  return hash.digest('hex').slice(0, 16);
}

/** The root of a build of the current source: reused if one exists, else built now. */
export function currentBuild(): string {
  const root = join(SCRATCH, `${PREFIX}${buildKey()}`);
  if (existsSync(join(root, 'package.json'))) {
    const now = new Date();
    utimesSync(root, now, now); // in use: not stale
    return root;
  }
  mkdirSync(SCRATCH, { recursive: true });
  const aside = `${root}.${process.pid}.tmp`;
  rmSync(aside, { recursive: true, force: true });
  buildInto(aside);
  try {
    renameSync(aside, root);
  } catch {
    // Another run renamed the same build into place first: theirs is as good.
    rmSync(aside, { recursive: true, force: true });
  }
  return root;
}

/** Vitest global setup: give tests the build of the current source, again on each rerun. */
export default function setup(project: TestProject): void {
  removeStale(PREFIX);
  project.provide('builtRoot', currentBuild());
  project.onTestsRerun(() => project.provide('builtRoot', currentBuild()));
}
