/**
 * Keeps the README's TypeScript examples true: every ```ts block is type-checked against the
 * package's public entry points, mapped to their sources, so an example drifts from the API and this
 * test fails without a build.
 *
 * Conventions for README authors:
 * - A block may use the placeholders declared in {@link PRELUDE} (`principal`, `args`, `log`,
 *   `echoedState`, `request`, …) as if they were in scope. Each is typed against the real exports.
 *   Not in docs/library.md ({@link SELF_CONTAINED}): a reader copies its blocks whole, so each
 *   one declares or imports every name it uses, and is type-checked without the prelude.
 * - A block that cannot compile on its own (a deliberate fragment) is fenced ```ts fragment: it is
 *   only checked to parse, not type-checked. Use it sparingly: an example that does not compile is
 *   usually a wrong example.
 * - Each block is a module of its own; names defined in one block are not visible in the next.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
/** Overridable so a scratch copy of the README can show that a broken example fails. */
const README = process.env.STATEGUARD_README_PATH ?? join(ROOT, 'README.md');
/** The README and the reference pages in `docs/` (only the README when it is overridden). */
const SOURCES =
  process.env.STATEGUARD_README_PATH !== undefined
    ? [README]
    : [
        README,
        ...readdirSync(join(ROOT, 'docs'))
          .filter((f) => f.endsWith('.md'))
          .sort()
          .map((f) => join(ROOT, 'docs', f)),
      ];
/** The pages whose every block must compile on its own, with no prelude in scope. */
const SELF_CONTAINED: ReadonlySet<string> = new Set(['docs/library.md']);
/** Virtual files live inside the package so `zod` and the SDK resolve from its node_modules. */
const VIRTUAL_DIR = join(ROOT, 'test', 'readme', '__readme-examples__');
const PRELUDE_FILE = join(VIRTUAL_DIR, 'prelude.ts');

/** The published specifiers, mapped to the sources their `exports` entries are built from. */
const ENTRY_POINTS: Record<string, string> = {
  stateguard: 'src/index.ts',
  'stateguard/sdk': 'src/sdk/index.ts',
  'stateguard/redis': 'src/redis.ts',
  'stateguard/errors': 'src/errors.ts',
};

/**
 * What README blocks may assume is in scope. Globals, so that a block which imports or defines the
 * same name simply shadows it.
 */
const PRELUDE = `
import type { CallToolRequest, ServerContext } from '@modelcontextprotocol/server';
import type * as Sdk from '@modelcontextprotocol/server';
import type { z } from 'zod';
import type { HandleBinder, HandleStore, KeysInput, Principal } from 'stateguard';
import type { StateGuard } from 'stateguard/sdk';

declare global {
  /** The caller, resolved from verified auth info. */
  const principal: Principal;
  /** Fields of a verified access token. */
  const clientId: string;
  const issuer: string;
  const subject: string;
  /** The tools/call request being served. */
  const request: CallToolRequest;
  /** The requestState the client sent back. */
  const echoedState: string;
  /** A structured logger. */
  const log: { warn(fields: Record<string, unknown>): void; error(error: unknown): void };
  /** A tool's validated arguments. */
  const args: { workspace: string };
  /** The operator's secrets. */
  const keys: KeysInput;
  /** A guard created as in the SDK section. */
  const guard: StateGuard;
  /** The SDK's server class, imported as in the SDK section. */
  const McpServer: typeof Sdk.McpServer;
  /** A server, a tool spec, a binder and a store set up as in the preceding examples. */
  const server: Sdk.McpServer;
  const spec: { inputSchema: z.ZodObject<{ workspace: z.ZodString }> };
  const handles: HandleBinder;
  const store: HandleStore<{ title: string }>;
  /** The application's own mapping from a request context to its principal. */
  function principalOf(ctx: ServerContext): Principal;
}
export {};
`;

interface Block {
  /** The Markdown file, relative to the package (`README.md`, `docs/library.md`). */
  readonly source: string;
  /** Line of the first line of code in that file (1-based). */
  readonly line: number;
  readonly heading: string;
  readonly code: string;
  readonly fragment: boolean;
}

/** Every ```ts fence, with the nearest heading above it. */
function extractBlocks(markdown: string, source: string): Block[] {
  const lines = markdown.split('\n');
  const blocks: Block[] = [];
  let heading = '(top of README)';
  for (let i = 0; i < lines.length; i++) {
    const text = lines[i] ?? '';
    const fence = /^(`{3,}|~{3,})\s*(\S*)(.*)$/.exec(text);
    if (fence === null) {
      const title = /^#{1,6}\s+(.*?)\s*$/.exec(text);
      if (title?.[1] !== undefined) heading = title[1];
      continue;
    }
    const marker = fence[1] ?? '```';
    const lang = fence[2] ?? '';
    const info = (fence[3] ?? '').trim().split(/\s+/);
    let end = i + 1;
    while (end < lines.length && !(lines[end] ?? '').startsWith(marker)) end++;
    if (lang === 'ts' || lang === 'typescript') {
      blocks.push({
        source,
        line: i + 2,
        heading,
        code: lines.slice(i + 1, end).join('\n'),
        fragment: info.includes('fragment'),
      });
    }
    i = end;
  }
  return blocks;
}

/** The project's strict options, minus what only makes sense for whole programs. */
function compilerOptions(): ts.CompilerOptions {
  const config = ts.readConfigFile(join(ROOT, 'tsconfig.json'), (path) => ts.sys.readFile(path));
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, ROOT);
  return {
    ...parsed.options,
    noEmit: true,
    declaration: false,
    sourceMap: false,
    // An example shows a value the reader goes on to use; flagging it as unused would only push
    // filler into the README.
    noUnusedLocals: false,
    noUnusedParameters: false,
    baseUrl: ROOT,
    paths: Object.fromEntries(Object.entries(ENTRY_POINTS).map(([name, file]) => [name, [file]])),
  };
}

interface Checked {
  readonly program: ts.Program;
  readonly files: Map<Block, string>;
}

/**
 * One program for every block (plus the prelude, unless `prelude` is false): the library is
 * type-checked once per program.
 */
function checkBlocks(blocks: readonly Block[], prelude = true): Checked {
  const files = new Map<Block, string>();
  const virtual = new Map<string, string>(prelude ? [[PRELUDE_FILE, PRELUDE]] : []);
  const dir = prelude ? VIRTUAL_DIR : join(VIRTUAL_DIR, 'self-contained');
  blocks.forEach((block, index) => {
    const file = join(dir, `block-${index}-line-${block.line}.ts`);
    files.set(block, file);
    // `export {}` makes every block a module, so blocks never see each other's declarations.
    virtual.set(file, `${block.code}\nexport {};\n`);
  });
  const options = compilerOptions();
  const host = ts.createCompilerHost(options, true);
  const { getSourceFile, fileExists, readFile } = host;
  host.fileExists = (path) => virtual.has(path) || fileExists.call(host, path);
  host.readFile = (path) => virtual.get(path) ?? readFile.call(host, path);
  host.getSourceFile = (path, languageVersion, onError, shouldCreate) => {
    const text = virtual.get(path);
    return text === undefined
      ? getSourceFile.call(host, path, languageVersion, onError, shouldCreate)
      : ts.createSourceFile(path, text, languageVersion, true);
  };
  const roots = prelude ? [PRELUDE_FILE, ...files.values()] : [...files.values()];
  const program = ts.createProgram(roots, options, host);
  return { program, files };
}

/** Diagnostics of one file, each prefixed with its Markdown file and line (`offset` + line in the file). */
function describeDiagnostics(
  program: ts.Program,
  file: string,
  offset: number,
  markdown = 'README.md',
): string[] {
  const source = program.getSourceFile(file);
  if (source === undefined) return [`${file}: not in the program`];
  const diagnostics = [
    ...program.getSyntacticDiagnostics(source),
    ...program.getSemanticDiagnostics(source),
  ];
  return diagnostics.map((diagnostic) => {
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n  ');
    if (diagnostic.file === undefined || diagnostic.start === undefined) return message;
    const { line, character } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
    return `${markdown}:${offset + line}:${character + 1} TS${diagnostic.code}: ${message}`;
  });
}

const blocks = SOURCES.flatMap((file) =>
  extractBlocks(readFileSync(file, 'utf8'), relative(ROOT, file)),
);
/** Proves the harness can fail: an option the sealer does not have, on the block's third line. */
const broken: Block = {
  source: 'README.md',
  line: 1000,
  heading: 'harness self-test',
  code: [
    "import { createStateSealer } from 'stateguard';",
    '',
    "createStateSealer({ keys: 'k'.repeat(32), audience: 'a', ttlSecs: 60 });",
  ].join('\n'),
  fragment: false,
};

/** Proves a self-contained page cannot lean on the prelude: `log` is a placeholder there. */
const leaning: Block = {
  source: 'docs/library.md',
  line: 2000,
  heading: 'harness self-test (self-contained)',
  code: "log.warn({ reason: 'auth' });",
  fragment: false,
};

describe('README TypeScript examples', () => {
  let checked: Checked;
  let bare: Checked;

  beforeAll(() => {
    const compiled = blocks.filter((block) => !block.fragment);
    checked = checkBlocks([
      ...compiled.filter((block) => !SELF_CONTAINED.has(block.source)),
      broken,
    ]);
    bare = checkBlocks(
      [...compiled.filter((block) => SELF_CONTAINED.has(block.source)), leaning],
      false,
    );
  });

  it('type-checks a self-contained page without the prelude: a placeholder is an unknown name', () => {
    const file = bare.files.get(leaning) ?? '';
    const diagnostics = describeDiagnostics(bare.program, file, leaning.line, leaning.source);
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]).toMatch(/^docs\/library\.md:2000:\d+ TS2304: Cannot find name 'log'/);
  });

  it('has blocks in every self-contained page', () => {
    for (const page of SELF_CONTAINED) {
      expect(
        blocks.filter((block) => block.source === page && !block.fragment).length,
        page,
      ).toBeGreaterThan(0);
    }
  });

  it('finds the README examples and resolves each public specifier to its source', () => {
    expect(blocks.filter((block) => !block.fragment).length).toBeGreaterThan(0);
    for (const [specifier, file] of Object.entries(ENTRY_POINTS)) {
      const resolved = ts.resolveModuleName(
        specifier,
        PRELUDE_FILE,
        checked.program.getCompilerOptions(),
        ts.sys,
        undefined,
        undefined,
        ts.ModuleKind.ESNext,
      ).resolvedModule;
      expect(resolved?.resolvedFileName, specifier).toBe(join(ROOT, file));
    }
  });

  it('type-checks the prelude of placeholders the examples rely on', () => {
    expect(describeDiagnostics(checked.program, PRELUDE_FILE, 0)).toEqual([]);
  });

  it('reports a misspelt option with the README line it is on', () => {
    const file = checked.files.get(broken) ?? '';
    const diagnostics = describeDiagnostics(checked.program, file, broken.line);
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]).toMatch(/^README\.md:1002:\d+ TS2353: .*'ttlSecs'/);
  });

  for (const block of blocks) {
    const name = `the example under "${block.heading}" (${block.source} line ${block.line}) type-checks`;
    if (block.fragment) {
      it(`the fragment under "${block.heading}" (README line ${block.line}) parses`, () => {
        const { diagnostics = [] } = ts.transpileModule(block.code, { reportDiagnostics: true });
        const messages = diagnostics.map((d) =>
          ts.flattenDiagnosticMessageText(d.messageText, ' '),
        );
        expect(messages).toEqual([]);
      });
      continue;
    }
    it(name, () => {
      const { program, files } = SELF_CONTAINED.has(block.source) ? bare : checked;
      const file = files.get(block) ?? '';
      const diagnostics = describeDiagnostics(program, file, block.line, block.source);
      expect(diagnostics, diagnostics.join('\n')).toEqual([]);
    });
  }
});
