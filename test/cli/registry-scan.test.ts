/**
 * `stateguard scan --registry` and `--server-json`, against a registry of our own (real HTTP on
 * 127.0.0.1, test/helpers/registry.ts) that also serves as the npm registry `npx` installs from:
 * 32 entries over 5 pages — npm stdio packages that start the repository's fixture, remotes on an
 * allowed and a refused host, missing secrets, OCI and PyPI packages, a deleted and a deprecated
 * entry, hostile entries. Each run is restricted to one probe: these tests are about what runs,
 * what does not and why, and the combined report's counts.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureHttp, type FixtureHttp } from '../../src/fixture/http.js';
import type { CombinedReport } from '../../src/probe/model/report.js';
import { COMBINED_FORMATS, REPORTERS } from '../../src/report/index.js';
import { runCli } from '../helpers/cli.js';
import { schemaProblems } from '../report/sarif-validators.js';
import { packFixturePackage, startRegistry, type LocalRegistry } from '../helpers/registry.js';

const dir = mkdtempSync(join(tmpdir(), 'stateguard-registry-'));
const home = join(dir, 'home');
const pwned = join(dir, 'pwned');
const closers: { close(): Promise<void> }[] = [];
afterAll(async () => {
  await Promise.all(closers.map((c) => c.close()));
  rmSync(dir, { recursive: true, force: true });
});

const ACTIVE = {
  'io.modelcontextprotocol.registry/official': { status: 'active', isLatest: true },
};
const API_KEY = 'values-file-api-key-7f3a91';
const HEADER_SECRET = 'values-file-header-secret-2b8c';
const CANARY = 'scanner-canary-secret-c0ffee42';

function entry(name: string, server: Record<string, unknown>, meta: unknown = ACTIVE): unknown {
  return { server: { name, version: '1.0.0', description: 'test', ...server }, _meta: meta };
}
function npm(args: readonly string[] = [], extra: Record<string, unknown> = {}): unknown {
  return {
    registryType: 'npm',
    identifier: 'sg-fixture-server',
    version: '1.0.0',
    transport: { type: 'stdio' },
    packageArguments: args.map((value) => ({ type: 'positional', value })),
    ...extra,
  };
}
const secret = (name: string, more: Record<string, unknown> = {}): unknown => ({
  name,
  isSecret: true,
  isRequired: true,
  ...more,
});

let registry: LocalRegistry;
let fixture: FixtureHttp;
let entries: unknown[];

beforeAll(async () => {
  mkdirSync(home, { recursive: true });
  const pkg = packFixturePackage(dir, 'sg-fixture-server', '1.0.0');
  fixture = await startFixtureHttp({ mode: 'flawed' });
  closers.push(fixture);
  const port = new URL(fixture.url).port;
  const local = fixture.url.replace('127.0.0.1', 'localhost');
  entries = [
    entry('io.test/npm-flawed', { packages: [npm(['flawed'])] }),
    entry('io.test/npm-fixed', { packages: [npm(['fixed'])] }),
    entry('io.test/npm-with-key', {
      packages: [npm(['flawed'], { environmentVariables: [secret('API_KEY')] })],
    }),
    entry('io.test/npm-missing-secret', {
      packages: [npm(['flawed'], { environmentVariables: [secret('MISSING_TOKEN')] })],
    }),
    // The registry's own value for a secret is never used.
    entry('io.test/npm-registry-secret', {
      packages: [
        npm(['flawed'], {
          environmentVariables: [secret('REGISTRY_TOKEN', { value: 'from-the-registry-123' })],
        }),
      ],
    }),
    entry('io.test/oci', {
      packages: [
        {
          registryType: 'oci',
          identifier: 'docker.io/test/server:1.0.0',
          transport: { type: 'stdio' },
        },
      ],
    }),
    entry('io.test/pypi', {
      packages: [
        {
          registryType: 'pypi',
          identifier: 'mcp-test',
          version: '1.0.0',
          transport: { type: 'stdio' },
        },
      ],
    }),
    entry(
      'io.test/deleted',
      { packages: [npm(['flawed'])] },
      {
        'io.modelcontextprotocol.registry/official': { status: 'deleted' },
      },
    ),
    // Flat metadata, as older registries send it.
    entry(
      'io.test/deprecated',
      { packages: [npm(['flawed'])] },
      {
        status: 'deprecated',
        statusMessage: 'use io.test/npm-fixed',
      },
    ),
    entry('io.test/remote-allowed', { remotes: [{ type: 'streamable-http', url: fixture.url }] }),
    entry('io.test/remote-refused', { remotes: [{ type: 'streamable-http', url: local }] }),
    entry('io.test/remote-header', {
      remotes: [{ type: 'streamable-http', url: fixture.url, headers: [secret('X-Api-Key')] }],
    }),
    entry('io.test/remote-missing-header', {
      remotes: [{ type: 'streamable-http', url: fixture.url, headers: [secret('X-Other-Key')] }],
    }),
    entry('io.test/remote-variable', {
      remotes: [
        {
          type: 'streamable-http',
          url: 'http://127.0.0.1:{port}/mcp',
          variables: { port: { isRequired: true } },
        },
      ],
    }),
    entry('io.test/remote-sse', { remotes: [{ type: 'sse', url: `${fixture.url}/sse` }] }),
    entry('io.test/hostile-identifier', {
      packages: [npm([], { identifier: 'x; touch /tmp/pwned #' })],
    }),
    entry(`io.test/${'h'.repeat(20_000)}`, { packages: [npm(['flawed'])] }),
    entry('io.test/hostile-version', { packages: [npm([], { version: '1.0.0 && touch pwned' })] }),
    // A hostile argument reaches the package as one literal argv entry, never a shell.
    entry('io.test/hostile-argument', { packages: [npm(['flawed', `$(touch ${pwned})`])] }),
    entry('io.test/hostile-env', {
      packages: [
        npm([], { environmentVariables: [{ name: 'NODE_OPTIONS', value: '--require /x' }] }),
      ],
    }),
    entry('io.test/\u001b[31mred\nline', { packages: [npm(['flawed'])] }),
    entry('io.test/nothing', {}),
    entry('io.test/npm-http', {
      packages: [
        npm([], { transport: { type: 'streamable-http', url: 'http://127.0.0.1:1/mcp' } }),
      ],
    }),
    entry('io.test/npm-unpublished', { packages: [npm([], { identifier: 'sg-not-published' })] }),
    entry('io.test/remote-closed', {
      remotes: [{ type: 'streamable-http', url: 'http://127.0.0.1:9/mcp' }],
    }),
    ...Array.from({ length: 7 }, (_, i) =>
      entry(`io.test/oci-${i}`, {
        packages: [
          {
            registryType: i % 2 ? 'nuget' : 'oci',
            identifier: `test/filler-${i}`,
            version: '1.0.0',
          },
        ],
      }),
    ),
  ];
  registry = await startRegistry(entries, [pkg]);
  closers.push(registry);
  writeFileSync(join(home, '.npmrc'), registry.npmrc);
  writeFileSync(
    join(dir, 'values.json'),
    JSON.stringify({
      'io.test/npm-with-key': { API_KEY },
      'io.test/remote-header': { 'X-Api-Key': HEADER_SECRET },
      'io.test/remote-variable': { port },
    }),
  );
}, 60_000);

/** The scanner's environment: a HOME whose .npmrc names the local registry, and a canary secret. */
const ENV = { HOME: home, SG_CANARY: CANARY };

function problems(report: CombinedReport): Record<string, string> {
  return Object.fromEntries(
    report.servers.map((s) => [s.server?.name ?? '', s.probes[0]?.verdict ?? s.problem ?? '']),
  );
}

describe('a registry of 32 entries over 5 pages', () => {
  let report: CombinedReport;
  let code: number | null;
  let stdout: string;
  let stderr: string;

  beforeAll(async () => {
    ({ code, stdout, stderr } = await runCli(
      [
        'scan',
        '--registry',
        registry.url,
        '--registry-page-size',
        '7',
        '--run-packages',
        '--allow-remote',
        '127.0.0.1',
        '--values',
        join(dir, 'values.json'),
        '--probe',
        'state/tamper',
        '--format',
        'json',
        '--quiet',
      ],
      ENV,
      170_000,
    ));
    report = JSON.parse(stdout) as CombinedReport;
  }, 180_000);

  it('follows the cursor page after page with the limit asked', () => {
    const pages = registry.requests.filter((u) => u.pathname === '/v0.1/servers');
    expect(pages).toHaveLength(5);
    expect(pages.map((u) => u.searchParams.get('limit'))).toEqual(['7', '7', '7', '7', '7']);
    expect(pages[0]?.searchParams.get('cursor')).toBeNull();
    expect(pages.slice(1).every((u) => u.searchParams.get('cursor') !== null)).toBe(true);
    expect(report.registry).toMatchObject({ kind: 'registry', pages: 5, entries: 32 });
  });

  it('says for each entry what ran and why the others did not', () => {
    expect(stderr).toMatch(
      /stateguard: registry http:\/\/127\.0\.0\.1:\d+\/v0\.1\/servers: 32 entries on 5 pages · 7 scanned · 23 not scanned · 2 failed/,
    );
    const p = problems(report);
    expect(p['io.test/npm-flawed@1.0.0']).toBe('confirmed');
    expect(p['io.test/npm-fixed@1.0.0']).toBe('refuted');
    expect(p['io.test/npm-with-key@1.0.0']).toBe('confirmed');
    expect(p['io.test/hostile-argument@1.0.0']).toBe('confirmed');
    expect(p['io.test/remote-allowed@1.0.0']).toBe('confirmed');
    expect(p['io.test/remote-header@1.0.0']).toBe('confirmed');
    expect(p['io.test/remote-variable@1.0.0']).toBe('confirmed');
    expect(p['io.test/npm-missing-secret@1.0.0']).toBe('not scanned: missing MISSING_TOKEN');
    expect(p['io.test/npm-registry-secret@1.0.0']).toBe('not scanned: missing REGISTRY_TOKEN');
    expect(p['io.test/remote-missing-header@1.0.0']).toBe('not scanned: missing X-Other-Key');
    expect(p['io.test/oci@1.0.0']).toMatch(
      /^not scanned: oci package .*registryType oci is not run/,
    );
    expect(p['io.test/pypi@1.0.0']).toMatch(/^not scanned: pypi package mcp-test: /);
    expect(p['io.test/deleted@1.0.0']).toBe('not scanned: its registry status is deleted');
    expect(p['io.test/deprecated@1.0.0']).toBe(
      'not scanned: its registry status is deprecated (use io.test/npm-fixed); --include-deprecated scans it',
    );
    expect(p['io.test/remote-refused@1.0.0']).toMatch(
      /^not scanned: remote http:\/\/localhost:\d+\/mcp: host localhost not allowed \(--allow-remote localhost\)$/,
    );
    expect(p['io.test/remote-sse@1.0.0']).toMatch(/its transport sse is not streamable-http/);
    expect(p['io.test/hostile-identifier@1.0.0']).toMatch(/: not an npm package name$/);
    expect(p['io.test/hostile-version@1.0.0']).toMatch(/: no exact version to install$/);
    expect(p['io.test/hostile-env@1.0.0']).toMatch(/it sets NODE_OPTIONS, which the scanner/);
    expect(p['io.test/nothing@1.0.0']).toBe('not scanned: it declares no package and no remote');
    expect(p['io.test/npm-http@1.0.0']).toMatch(/its transport streamable-http is not stdio/);
    // Invalid names are reported cut and made visible, never as sent.
    const invalid = report.servers.filter((s) => /not a valid server.json/.test(s.problem ?? ''));
    expect(invalid).toHaveLength(2);
    for (const s of invalid) {
      expect(s.server?.name.length).toBeLessThanOrEqual(100);
      expect(s.server?.name).not.toContain(String.fromCharCode(27));
      expect(s.server?.name).not.toContain('\n');
    }
    // Nothing the registry sent ran in a shell.
    expect(existsSync(pwned)).toBe(false);
    expect(existsSync('/tmp/pwned')).toBe(false);
  });

  it('counts scanned, not scanned and failed, and fails the run on the confirmed ones', () => {
    const failed = report.servers.filter(
      (s) => s.problem !== undefined && !s.problem.startsWith('not scanned: '),
    );
    expect(failed.map((s) => s.server?.name).sort()).toEqual([
      'io.test/npm-unpublished@1.0.0',
      'io.test/remote-closed@1.0.0',
    ]);
    expect(report.registry?.counts).toEqual({ scanned: 7, notScanned: 23, failed: 2 });
    expect(code).toBe(1);
  });

  // One scan, every format of its combined report: the counts and each reason, escaped as the
  // format needs (the hostile name's escape character never reaches any of them).
  it.each(COMBINED_FORMATS)(
    'the %s report says the counts and why entries were not scanned',
    (format) => {
      const out =
        REPORTERS[format].renderCombined?.(report, { color: false, evidence: 'summary' }) ?? '';
      if (format === 'json' || format === 'sarif') {
        const text = JSON.stringify(JSON.parse(out));
        expect(text).toContain('"scanned":7,"notScanned":23,"failed":2');
        expect(text).toContain('missing MISSING_TOKEN');
        if (format === 'sarif') expect(schemaProblems(JSON.parse(out))).toEqual([]);
      } else {
        // Markdown escapes its own punctuation (MISSING\_TOKEN): read it as a renderer would.
        const read = format === 'markdown' ? out.replace(/\\(.)/g, '$1') : out;
        expect(read).toMatch(/32 entries on 5 pages · 7 scanned · 23 not scanned · 2 failed/);
        expect(read).toContain('not scanned: missing MISSING_TOKEN');
        expect(read).toContain('not scanned: its registry status is deleted');
        expect(read).toContain('registryType nuget is not run');
      }
      expect(out).not.toContain(String.fromCharCode(27));
      expect(out).not.toContain(CANARY);
      expect(out).not.toContain(API_KEY);
    },
  );

  it('keeps every secret out of the report', () => {
    for (const value of [API_KEY, HEADER_SECRET, CANARY, 'from-the-registry-123'])
      expect(stdout).not.toContain(value);
  });
});

describe('what runs is only what the flags allow', () => {
  it('without --run-packages or --allow-remote nothing is installed, spawned or connected to', async () => {
    const before = registry.requests.length;
    const { code, stdout } = await runCli(
      [
        'scan',
        '--registry',
        registry.url,
        '--registry-page-size',
        '100',
        '--format',
        'json',
        '--quiet',
      ],
      ENV,
      60_000,
    );
    const report = JSON.parse(stdout) as CombinedReport;
    const asked = registry.requests.slice(before).map((u) => u.pathname);
    // One page of the list, and not one request for an npm package.
    expect(asked).toEqual(['/v0.1/servers']);
    expect(report.registry?.counts).toEqual({ scanned: 0, notScanned: 32, failed: 0 });
    const p = problems(report);
    expect(p['io.test/npm-flawed@1.0.0']).toBe(
      'not scanned: npm package sg-fixture-server: packages run only with --run-packages',
    );
    expect(p['io.test/remote-allowed@1.0.0']).toMatch(
      /^not scanned: remote http:\/\/127\.0\.0\.1:\d+\/mcp: host 127\.0\.0\.1 not allowed \(--allow-remote 127\.0\.0\.1\)$/,
    );
    // Nothing scanned: nothing decided (exit 4), as with --config.
    expect(code).toBe(4);
  }, 70_000);

  it('sends the list filters and reads only what they match', async () => {
    const before = registry.requests.length;
    const { stdout } = await runCli(
      [
        'scan',
        '--registry',
        registry.url,
        '--registry-search',
        'remote-',
        '--registry-updated-since',
        '2025-08-07T13:15:04Z',
        '--registry-version',
        'latest',
        '--format',
        'json',
        '--quiet',
      ],
      ENV,
      60_000,
    );
    const [asked] = registry.requests.slice(before);
    expect(Object.fromEntries(asked?.searchParams ?? [])).toEqual({
      limit: '30',
      search: 'remote-',
      updated_since: '2025-08-07T13:15:04Z',
      version: 'latest',
    });
    const report = JSON.parse(stdout) as CombinedReport;
    expect(report.servers.every((s) => s.server?.name.startsWith('io.test/remote-'))).toBe(true);
    expect(report.registry?.entries).toBe(7);
  }, 70_000);

  it('--include-deprecated scans a deprecated entry, never a deleted one; --server picks', async () => {
    const { stdout } = await runCli(
      [
        'scan',
        '--registry',
        registry.url,
        '--include-deprecated',
        '--run-packages',
        '--server',
        'io.test/deprecated',
        '--server',
        'io.test/deleted',
        '--probe',
        'state/tamper',
        '--format',
        'json',
        '--quiet',
      ],
      ENV,
      90_000,
    );
    const p = problems(JSON.parse(stdout) as CombinedReport);
    expect(p).toEqual({
      'io.test/deleted@1.0.0': 'not scanned: its registry status is deleted',
      'io.test/deprecated@1.0.0': 'confirmed',
    });
  }, 100_000);
});

describe('--server-json and the bounds of a registry', () => {
  it('scans one server.json file, its secret header from --values', async () => {
    const file = join(dir, 'server.json');
    writeFileSync(
      file,
      JSON.stringify({
        name: 'io.test/one',
        version: '2.0.0',
        description: 'one',
        remotes: [{ type: 'streamable-http', url: fixture.url, headers: [secret('X-Api-Key')] }],
      }),
    );
    const values = join(dir, 'one-values.json');
    writeFileSync(values, JSON.stringify({ 'io.test/one': { 'X-Api-Key': HEADER_SECRET } }));
    const { code, stdout, stderr } = await runCli(
      [
        'scan',
        '--server-json',
        file,
        '--allow-remote',
        '127.0.0.1',
        '--values',
        values,
        '--probe',
        'state/tamper',
        '--format',
        'markdown',
        '--quiet',
      ],
      ENV,
      60_000,
    );
    expect(stdout).toContain('server.json');
    expect(stdout).toMatch(/1 entry · 1 scanned · 0 not scanned · 0 failed/);
    expect(stdout).not.toContain(HEADER_SECRET);
    expect(stderr).toMatch(/1 entry · 1 scanned/);
    expect(code).toBe(1);
    // Without the value the secret is missing, and the registry is never asked for it.
    const missing = await runCli(
      ['scan', '--server-json', file, '--allow-remote', '127.0.0.1', '--format', 'json', '--quiet'],
      ENV,
      60_000,
    );
    expect(problems(JSON.parse(missing.stdout) as CombinedReport)).toEqual({
      'io.test/one@2.0.0': 'not scanned: missing X-Api-Key',
    });
  }, 130_000);

  it('reads a server.json from a URL, and scans nothing it was not allowed to', async () => {
    const { startHttp } = await import('../helpers/http.js');
    const served = await startHttp((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(entries[0]));
    });
    closers.push(served);
    const { code, stdout } = await runCli(
      ['scan', '--server-json', `${served.url}/server.json`, '--format', 'json', '--quiet'],
      ENV,
      60_000,
    );
    const report = JSON.parse(stdout) as CombinedReport;
    expect(report.registry).toMatchObject({ kind: 'server-json', entries: 1 });
    expect(problems(report)).toEqual({
      'io.test/npm-flawed@1.0.0':
        'not scanned: npm package sg-fixture-server: packages run only with --run-packages',
    });
    expect(code).toBe(4);
  }, 70_000);

  it('stops at --registry-max-pages and says so in the report', async () => {
    const { stdout, stderr } = await runCli(
      [
        'scan',
        '--registry',
        registry.url,
        '--registry-page-size',
        '5',
        '--registry-max-pages',
        '2',
        '--format',
        'json',
        '--quiet',
      ],
      ENV,
      60_000,
    );
    const report = JSON.parse(stdout) as CombinedReport;
    expect(report.registry).toMatchObject({
      pages: 2,
      entries: 10,
      cut: 'stopped after 2 pages (the page bound)',
    });
    expect(stderr).toContain('warning: registry stopped after 2 pages (the page bound)');
  }, 70_000);

  it('refuses a registry whose first page is not a server list (exit 2), and oversized answers', async () => {
    const { startHttp } = await import('../helpers/http.js');
    const huge = 'x'.repeat(5 * 1024 * 1024);
    const bad = await startHttp((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        req.url?.startsWith('/big/') ? JSON.stringify({ servers: [huge] }) : '{"servers": 3}',
      );
    });
    closers.push(bad);
    const notList = await runCli(['scan', '--registry', bad.url, '--quiet'], ENV, 30_000);
    expect(notList.code).toBe(2);
    expect(notList.stderr).toMatch(
      /cannot read --registry page 1 of .*: not a server list \(servers: /,
    );
    const big = await runCli(['scan', '--registry', `${bad.url}/big`, '--quiet'], ENV, 30_000);
    expect(big.code).toBe(2);
    expect(big.stderr).toMatch(/answer of more than the 4194304 bytes read/);
  }, 70_000);
});
