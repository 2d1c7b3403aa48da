/**
 * `stateguard scan --config`: real client configuration files naming real fixture twins (stdio
 * children the scan starts, HTTP servers this test starts), scanned by the real CLI. Each run is
 * restricted to one probe: these tests are about the plumbing (formats, placeholders, environment,
 * selection, concurrency, exit codes), the probes have their own.
 */
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureHttp, type FixtureHttp } from '../../src/fixture/http.js';
import { fixtureStdioCommand } from '../../harness/fixture/stdio-command.js';
import type { CombinedReport } from '../../src/probe/model/report.js';
import type { Log as SarifLog } from 'sarif';
import { builtFixtureStdio, runCli } from '../helpers/cli.js';
import { githubProblems } from '../report/sarif-github.js';
import { schemaProblems } from '../report/sarif-validators.js';
import { REPO_ROOT } from '../helpers/spawn-stdio.js';

const dir = mkdtempSync(join(tmpdir(), 'stateguard-config-'));
const started: { close(): Promise<void> }[] = [];
afterAll(async () => {
  await Promise.all(started.map((s) => s.close()));
  rmSync(dir, { recursive: true, force: true });
});

/** Writes `text` to `dir/<path>` and returns the file's path. */
function file(path: string, text: string): string {
  const at = join(dir, path);
  mkdirSync(dirname(at), { recursive: true });
  writeFileSync(at, text);
  return at;
}

/** A stdio fixture entry in `mode`, started in the repository. */
function stdioEntry(mode: string): Record<string, unknown> {
  const { command, args } = builtFixtureStdio(mode);
  return { command, args, cwd: REPO_ROOT };
}

async function http(mode: 'flawed' | 'fixed'): Promise<FixtureHttp> {
  const f = await startFixtureHttp({ mode });
  started.push(f);
  return f;
}

const ONE_PROBE = ['--probe', 'state/tamper'];

/** The verdict of the one probe, or the problem, per server name. */
function outcomes(report: CombinedReport): Record<string, string> {
  return Object.fromEntries(
    report.servers.map((s) => [s.server?.name, s.probes[0]?.verdict ?? `problem: ${s.problem}`]),
  );
}

describe('every client format, both transports, one combined report', () => {
  let report: CombinedReport;
  let run: Awaited<ReturnType<typeof runCli>>;
  let files: Record<string, string>;
  let urls: { SG_FIXED_URL: string; SG_FLAWED_URL: string };
  const tenant = 'tenant-secret-4d1f9a';

  beforeAll(async () => {
    const [fixed, flawed] = await Promise.all([http('fixed'), http('flawed')]);
    urls = { SG_FIXED_URL: fixed.url, SG_FLAWED_URL: flawed.url };
    files = {
      desktop: file(
        'desktop/claude_desktop_config.json',
        JSON.stringify({ mcpServers: { 'desktop-stdio': stdioEntry('${SG_MODE}') } }, null, 2),
      ),
      code: file(
        'project/.mcp.json',
        JSON.stringify(
          {
            mcpServers: {
              'code-http': {
                type: 'http',
                url: '${SG_FIXED_URL}',
                headers: { 'X-Tenant': '${SG_TENANT:-none}' },
              },
              'code-sse': { type: 'sse', url: 'http://127.0.0.1:9/sse' },
              'code-unset': { command: 'node', args: ['${SG_NEVER_SET}', '${file:/etc/x}'] },
            },
          },
          null,
          2,
        ),
      ),
      cursor: file(
        'project/.cursor/mcp.json',
        JSON.stringify({ mcpServers: { 'cursor-http': { url: '${env:SG_FLAWED_URL}' } } }),
      ),
      // VS Code allows comments and trailing commas; the entry's key is on line 6.
      vscode: file(
        'project/.vscode/mcp.json',
        [
          '// workspace servers',
          '{',
          '  "inputs": [{ "type": "promptString", "id": "fixture-mode", "password": false },],',
          '  "servers": {',
          '    /* the flawed twin over stdio */',
          '    "vscode-stdio": {',
          '      "type": "stdio",',
          `      "command": ${JSON.stringify(process.execPath)},`,
          `      "args": ${JSON.stringify(stdioEntry('${input:fixture-mode}').args)},`,
          '      "cwd": "${workspaceFolder}/..",',
          '    },',
          '  },',
          '}',
        ].join('\n'),
      ),
      windsurf: file(
        'home/.codeium/windsurf/mcp_config.json',
        JSON.stringify({ mcpServers: { 'windsurf-http': { serverUrl: '${env:SG_FIXED_URL}' } } }),
      ),
    };
    // The VS Code entry runs in <dir>: its project's parent; give it the repository instead.
    writeFileSync(
      files.vscode as string,
      readFileSync(files.vscode as string, 'utf8').replace(
        '"${workspaceFolder}/.."',
        JSON.stringify(REPO_ROOT),
      ),
    );
    run = await runCli(
      [
        'scan',
        ...Object.values(files).flatMap((f) => ['--config', f]),
        ...ONE_PROBE,
        '--format',
        'json',
        '--concurrency',
        '4',
      ],
      {
        SG_MODE: 'flawed',
        SG_FIXED_URL: fixed.url,
        SG_FLAWED_URL: flawed.url,
        SG_TENANT: tenant,
        STATEGUARD_INPUT_FIXTURE_MODE: 'fixed',
      },
      60_000,
    );
    report = JSON.parse(run.stdout) as CombinedReport;
  }, 90_000);

  it('reads each format and scans each server with its placeholders resolved', () => {
    expect(outcomes(report)).toEqual({
      'desktop-stdio': 'confirmed',
      'code-http': 'refuted',
      'code-sse': expect.stringContaining('problem: not scanned: an SSE-only entry'),
      'code-unset': expect.stringContaining(
        'unresolved placeholders ${SG_NEVER_SET}, ${file:/etc/x}: not started',
      ),
      'cursor-http': 'confirmed',
      'vscode-stdio': 'refuted',
      'windsurf-http': 'refuted',
    });
    expect(run.code).toBe(1);
  });

  it('names each server, its file, the line of its key and the format', () => {
    expect(report.kind).toBe('combined');
    expect(report.configs).toEqual(Object.values(files));
    expect(report.servers.map((s) => s.server)).toEqual([
      { name: 'desktop-stdio', file: files.desktop, line: 3, format: 'claude-desktop' },
      { name: 'code-http', file: files.code, line: 3, format: 'claude-code' },
      { name: 'code-sse', file: files.code, line: 10, format: 'claude-code' },
      { name: 'code-unset', file: files.code, line: 14, format: 'claude-code' },
      { name: 'cursor-http', file: files.cursor, line: 1, format: 'cursor' },
      { name: 'vscode-stdio', file: files.vscode, line: 6, format: 'vscode' },
      { name: 'windsurf-http', file: files.windsurf, line: 1, format: 'windsurf' },
    ]);
  });

  it('never starts a server with a literal placeholder, and says what to set', () => {
    const unset = report.servers.find((s) => s.server?.name === 'code-unset');
    expect(unset?.probes).toEqual([]);
    expect(unset?.problem).toContain('set SG_NEVER_SET');
    expect(unset?.problem).toContain('stateguard does not resolve ${file:/etc/x}');
    expect(run.stderr).toContain('[code-unset] stateguard: unresolved placeholders');
  });

  it('sends an entry header with its value redacted in the report', () => {
    const http = report.servers.find((s) => s.server?.name === 'code-http');
    expect(JSON.stringify(http)).toContain('<header X-Tenant>');
    expect(run.stdout).not.toContain(tenant);
  });

  it('prefixes every progress line with the server it is about', () => {
    const progress = run.stderr.split('\n').filter((l) => l.includes('stateguard: probe'));
    expect(progress.length).toBeGreaterThanOrEqual(5);
    for (const line of progress) expect(line).toMatch(/^\[[a-z-]+\] stateguard: probe /);
  });

  it('writes SARIF a code-scanning upload accepts, each result at its entry in the config', async () => {
    // The repository is the project folder: its two configuration files are inside it.
    const sarif = await runCli(
      [
        'scan',
        '--config',
        files.code as string,
        '--config',
        files.cursor as string,
        ...ONE_PROBE,
        '--format',
        'sarif',
        '--all',
      ],
      { GITHUB_WORKSPACE: join(dir, 'project'), ...urls },
      60_000,
    );
    expect(sarif.code).toBe(1);
    const log = JSON.parse(sarif.stdout) as SarifLog;
    expect(schemaProblems(log)).toEqual([]);
    expect(githubProblems(log, sarif.stdout)).toEqual([]);
    const places = log.runs[0]?.results?.map((r) => {
      const at = r.locations?.[0]?.physicalLocation;
      return [r.kind, at?.artifactLocation?.uri, at?.region?.startLine];
    });
    expect(places).toEqual(
      expect.arrayContaining([
        ['pass', '.mcp.json', 3],
        ['fail', '.cursor/mcp.json', 1],
      ]),
    );
  }, 90_000);
});

describe('--server, exit codes and entries that are not scanned', () => {
  const config = (): string =>
    file(
      'select/.mcp.json',
      JSON.stringify({
        mcpServers: {
          legacy: { type: 'sse', url: 'http://127.0.0.1:9/sse' },
          unset: { type: 'http', url: 'http://127.0.0.1:9/${SG_NEVER_SET}' },
          fixed: stdioEntry('fixed'),
        },
      }),
    );

  it('refuses an unknown --server name, listing the names (exit 2)', async () => {
    const run = await runCli(['scan', '--config', config(), '--server', 'nope']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("unknown --server 'nope' (legacy, unset, fixed)");
  });

  it('exits 4 when a picked server could not be started: nothing decided on it', async () => {
    const run = await runCli([
      'scan',
      '--config',
      config(),
      '--server',
      'unset',
      '--server',
      'legacy',
    ]);
    expect(run.code).toBe(4);
    expect(run.stdout).toContain('not started');
    expect(run.stdout).toContain('not scanned');
  });

  it('exits 4 when nothing at all was scanned, even if only by design', async () => {
    const run = await runCli(['scan', '--config', config(), '--server', 'legacy']);
    expect(run.code).toBe(4);
  });

  it('exits 0 when every scanned server is clean; an SSE-only entry beside it does not count', async () => {
    const run = await runCli(
      ['scan', '--config', config(), '--server', 'fixed', '--server', 'legacy', ...ONE_PROBE],
      {},
      40_000,
    );
    expect(run.stdout).toMatch(/fixed\s+stdio\s+refuted\s+clean/);
    expect(run.stdout).toMatch(/legacy\s+http\s+-\s+not scanned/);
    expect(run.code).toBe(0);
  });

  it('refuses a format without a combined report, and single-target flags', async () => {
    const single = await runCli(['scan', '--config', config(), '--format', 'cert-x-gen']);
    expect(single.code).toBe(2);
    expect(single.stderr).toContain('--format cert-x-gen has no report for several servers yet');
    const both = await runCli(['scan', '--config', config(), '--stdio', 'x']);
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('--stdio does not combine with --config');
  });
});

describe('a stdio server gets its own env over a minimal environment', () => {
  it('does not see a variable only the scanner has, and sees the ones its entry sets', async () => {
    // Exits before serving when the scanner's variable leaked in or the entry's did not arrive.
    const { command, args } = fixtureStdioCommand('fixed');
    const main = args.findIndex((a) => /main\.[jt]s$/.test(a)); // built, or source through tsx
    const wrapper = file(
      'env/check-env.mjs',
      [
        "if (process.env.SG_SCANNER_ONLY !== undefined) { console.error('leaked'); process.exit(7); }",
        "if (process.env.SG_FROM_ENTRY !== 'entry-value') { console.error('missing'); process.exit(8); }",
        "if (process.env.PATH === undefined) { console.error('no PATH'); process.exit(9); }",
        `process.argv.splice(1, 1, ${JSON.stringify(args[main])});`,
        `await import(${JSON.stringify(new URL(`file://${args[main]}`).href)});`,
      ].join('\n'),
    );
    const entryArgs = [...args.slice(0, main), wrapper, ...args.slice(main + 1)];
    const config = file(
      'env/.mcp.json',
      JSON.stringify({
        mcpServers: {
          envcheck: {
            command,
            args: entryArgs,
            cwd: REPO_ROOT,
            env: { SG_FROM_ENTRY: 'entry-value' },
          },
        },
      }),
    );
    const run = await runCli(
      ['scan', '--config', config, ...ONE_PROBE, '--format', 'json'],
      { SG_SCANNER_ONLY: 'scanner-secret' },
      40_000,
    );
    const report = JSON.parse(run.stdout) as CombinedReport;
    expect(outcomes(report)).toEqual({ envcheck: 'refuted' });
    expect(run.code).toBe(0);
  });
});

describe('scans run concurrently', () => {
  /**
   * A proxy in front of a fixture that holds every request until each of the `gate`'s proxies
   * has been contacted: with one scan at a time the first would wait forever (until its deadline).
   */
  function gatedProxy(
    target: string,
    gate: { arrived: Set<string>; open: Promise<void>; check(): void },
    name: string,
  ): Promise<{ url: string; close(): Promise<void> }> {
    const to = new URL(target);
    const server = createServer((req: IncomingMessage, res: ServerResponse) => {
      gate.arrived.add(name);
      gate.check();
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        void gate.open.then(() => {
          const out = request(
            {
              host: to.hostname,
              port: to.port,
              path: req.url,
              method: req.method,
              headers: { ...req.headers, host: to.host },
            },
            (answer) => {
              res.writeHead(answer.statusCode ?? 502, answer.headers);
              answer.pipe(res);
            },
          );
          out.on('error', () => res.destroy());
          out.end(Buffer.concat(chunks));
        });
      });
    });
    return new Promise((resolve) =>
      server.listen(0, '127.0.0.1', () => {
        const { port } = server.address() as AddressInfo;
        resolve({
          url: `http://127.0.0.1:${port}/mcp`,
          close: () =>
            new Promise<void>((done) => {
              server.closeAllConnections();
              server.close(() => done());
            }),
        });
      }),
    );
  }

  it('has both servers in flight at once with --concurrency 2', async () => {
    let release = (): void => undefined;
    const open = new Promise<void>((resolve) => (release = resolve));
    const gate = {
      arrived: new Set<string>(),
      open,
      check(): void {
        if (gate.arrived.size === 2) release();
      },
    };
    const [one, two] = await Promise.all([http('fixed'), http('fixed')]);
    const proxies = await Promise.all([
      gatedProxy(one.url, gate, 'one'),
      gatedProxy(two.url, gate, 'two'),
    ]);
    started.push(...proxies);
    const config = file(
      'gate/.mcp.json',
      JSON.stringify({
        mcpServers: {
          one: { type: 'http', url: proxies[0]?.url },
          two: { type: 'http', url: proxies[1]?.url },
        },
      }),
    );
    const run = await runCli(
      [
        'scan',
        '--config',
        config,
        ...ONE_PROBE,
        '--concurrency',
        '2',
        '--deadline',
        '20s',
        '--format',
        'json',
      ],
      {},
      40_000,
    );
    expect(gate.arrived).toEqual(new Set(['one', 'two']));
    expect(outcomes(JSON.parse(run.stdout) as CombinedReport)).toEqual({
      one: 'refuted',
      two: 'refuted',
    });
    expect(run.code).toBe(0);
  });
});

describe('--config without a file: the well-known locations', () => {
  it('finds the project and user files for this OS, lists them on stderr and reads each', async () => {
    const home = join(dir, 'wk-home');
    const project = join(dir, 'wk-project');
    const sse = (name: string): string =>
      JSON.stringify({ mcpServers: { [name]: { type: 'sse', url: 'http://127.0.0.1:9/sse' } } });
    const found = [
      file('wk-project/.mcp.json', sse('project-code')),
      file(
        'wk-project/.vscode/mcp.json',
        JSON.stringify({
          servers: { 'project-vscode': { type: 'sse', url: 'http://127.0.0.1:9/sse' } },
        }),
      ),
      file('wk-home/.cursor/mcp.json', sse('user-cursor')),
      file('wk-home/.codeium/windsurf/mcp_config.json', sse('user-windsurf')),
      file(
        process.platform === 'darwin'
          ? 'wk-home/Library/Application Support/Claude/claude_desktop_config.json'
          : 'wk-home/.config/Claude/claude_desktop_config.json',
        sse('user-desktop'),
      ),
    ];
    const run = await runCli(
      ['scan', '--config', '--format', 'json'],
      { HOME: home, USERPROFILE: home, XDG_CONFIG_HOME: '', APPDATA: join(home, '.config') },
      25_000,
      project,
    );
    expect(run.stderr).toContain('--config found 5 client configurations:');
    for (const f of found) expect(run.stderr).toContain(f);
    const report = JSON.parse(run.stdout) as CombinedReport;
    expect(report.servers.map((s) => s.server?.name)).toEqual([
      'project-code',
      'project-vscode',
      'user-cursor',
      'user-windsurf',
      'user-desktop',
    ]);
    // Nothing but SSE-only entries: nothing was scanned.
    expect(run.code).toBe(4);
  });

  it('says where it looked when it finds nothing (exit 2)', async () => {
    const empty = join(dir, 'wk-empty');
    mkdirSync(empty, { recursive: true });
    const run = await runCli(
      ['scan', '--config'],
      { HOME: empty, XDG_CONFIG_HOME: '' },
      25_000,
      empty,
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--config found no client configuration; looked in');
    expect(run.stderr).toContain(join(empty, '.mcp.json'));
  });
});
