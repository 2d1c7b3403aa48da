/**
 * The library's front door (issue 35): `harness/examples/front-door.ts` is the complete server
 * docs/library.md opens with. This file keeps the two the same, starts the example as a real HTTP
 * server on 127.0.0.1 (port 0) and scans it with the scanner: it must read clean, with the state and
 * handle probes decided (refuted), not skipped.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { REPO_ROOT, spawnStdio, type StdioChild } from '../helpers/spawn-stdio.js';

const EXAMPLE = join(REPO_ROOT, 'harness/examples/front-door.ts');
const LIBRARY_MD = join(REPO_ROOT, 'docs/library.md');
/** The example's relative imports, as a reader of the docs writes them. */
const SPECIFIERS: Record<string, string> = {
  "'../../src/index.js'": "'stateguard'",
  "'../../src/sdk/index.js'": "'stateguard/sdk'",
};

/** The example from its first import to its end, with the package's specifiers. */
function exampleAsDocumented(): string {
  const source = readFileSync(EXAMPLE, 'utf8');
  let code = source.slice(source.indexOf('\nimport ') + 1);
  for (const [relative, specifier] of Object.entries(SPECIFIERS)) {
    code = code.replaceAll(`from ${relative};`, `from ${specifier};`);
  }
  return code.trimEnd();
}

/** The first ```ts block of docs/library.md. */
function firstLibraryBlock(): { code: string; heading: string } {
  const markdown = readFileSync(LIBRARY_MD, 'utf8');
  const start = markdown.indexOf('```ts\n');
  const end = markdown.indexOf('\n```', start + 6);
  const before = markdown.slice(0, start);
  const headings = before.match(/^##+ .*$/gm) ?? [];
  return { code: markdown.slice(start + 6, end).trimEnd(), heading: headings.at(-1) ?? '' };
}

describe('docs/library.md opens with the front-door example', () => {
  it('shows harness/examples/front-door.ts, character for character, as its first code block', () => {
    const block = firstLibraryBlock();
    expect(block.heading).toMatch(/complete server/i);
    expect(block.code).toBe(exampleAsDocumented());
  });

  it('imports only the package and its peers, never a relative path', () => {
    expect(exampleAsDocumented()).not.toMatch(/from '\.\.?\//);
  });
});

describe('the front-door example, scanned', () => {
  const tokens = {
    a: `tok-a-${randomBytes(9).toString('hex')}`,
    b: `tok-b-${randomBytes(9).toString('hex')}`,
  };
  let server: StdioChild;
  let url: string;

  beforeAll(async () => {
    server = await spawnStdio(EXAMPLE, [], {
      env: {
        STATEGUARD_KEYS: randomBytes(32).toString('base64url'),
        DEMO_TOKENS: `alice=${tokens.a},bob=${tokens.b}`,
        PORT: '0',
      },
      readyMarker: '[notes] ready',
      readyTimeoutMs: 30_000,
    });
    url = /ready (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(server.stderr())?.[1] ?? '';
  }, 40_000);

  afterAll(async () => {
    await server?.close();
  });

  it('reads clean: nothing confirmed, the state and handle probes refuted, exit 0', async () => {
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const run = await runCli(
      [
        'scan',
        '--http',
        url,
        '--identity-a',
        tokens.a,
        '--identity-b',
        tokens.b,
        '--format',
        'json',
        '--quiet',
      ],
      {},
      60_000,
    );
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(run.stdout) as {
      probes: { id: string; verdict: string }[];
      surface: { flows: string[] };
    };
    const verdicts = Object.fromEntries(report.probes.map((p) => [p.id, p.verdict]));
    expect(report.probes.filter((p) => p.verdict === 'confirmed')).toEqual([]);
    expect(report.probes.filter((p) => p.verdict === 'errored')).toEqual([]);
    // The surface the example has, each decided.
    for (const id of [
      'handle/cross-principal',
      'state/tamper',
      'state/replay-principal',
      'state/replay-request',
      'state/replay-after-completion',
      'state/error-oracle',
      'transport/origin',
    ]) {
      expect(verdicts[id], id).toBe('refuted');
    }
    expect(report.surface.flows).toContain('create_note');
    // The tokens never reach the report.
    expect(run.stdout).not.toContain(tokens.a);
    expect(run.stdout).not.toContain(tokens.b);
    // The refusals the scan drew were logged by the example's hooks, with reasons only.
    expect(server.stderr()).toMatch(/\[notes\] refused tools\/call create_note: principal/);
    expect(server.stderr()).toMatch(/\[notes\] handle refused: principal/);
  }, 70_000);
});
