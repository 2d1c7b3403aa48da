/**
 * Client configuration files without a scan: formats and the line of each entry, hostile and
 * broken files, placeholders, the minimal environment, well-known locations, each server's plan
 * (identities, headers, env file), the baseline over several servers, the pool and the exit code.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, sep } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { combinedExitCode } from '../../src/cli/config-command.js';
import { wellKnownLocations } from '../../src/cli/config/locations.js';
import { minimalEnv } from '../../src/cli/config/minimal-env.js';
import { identityVariable, parseEnvFile, planServer } from '../../src/cli/config/plan.js';
import type { PlanOptions } from '../../src/cli/config/plan.js';
import { MAX_CONFIG_BYTES, parseConfig, readConfig } from '../../src/cli/config/read-config.js';
import { substitute } from '../../src/cli/config/substitute.js';
import { pool } from '../../src/cli/pool.js';
import { parseScanArgs } from '../../src/cli/scan-args.js';
import { ProbeUsageError } from '../../src/errors.js';
import {
  applyBaseline,
  applyBaselineToServers,
  failsRun,
  parseBaseline,
} from '../../src/probe/runner/baseline.js';
import type { CombinedReport, RunReport } from '../../src/probe/model/report.js';
import { combined } from '../report/sample-combined.js';
import { report } from '../report/sample-report.js';

const dir = mkdtempSync(join(tmpdir(), 'stateguard-config-files-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const usage = (f: () => unknown): string => {
  try {
    f();
  } catch (error) {
    expect(error).toBeInstanceOf(ProbeUsageError);
    return (error as Error).message;
  }
  throw new Error('no usage error');
};

describe('client formats', () => {
  it.each([
    ['/u/Library/Application Support/Claude/claude_desktop_config.json', 'claude-desktop'],
    ['/p/.mcp.json', 'claude-code'],
    ['/u/.claude.json', 'claude-code'],
    ['/p/.cursor/mcp.json', 'cursor'],
    ['/p/.vscode/mcp.json', 'vscode'],
    ['/u/.config/Code/User/mcp.json', 'vscode'],
    ['/u/.codeium/windsurf/mcp_config.json', 'windsurf'],
    ['/p/servers.json', 'generic'],
  ])('reads %s as %s', (file, format) => {
    const key = format === 'vscode' ? 'servers' : 'mcpServers';
    const text = JSON.stringify({ [key]: { s: { command: 'x' } } });
    expect(parseConfig(text, file, '/p').format).toBe(format);
  });

  it('gives each entry the 1-based line of its key, and reads both transports and Windsurf serverUrl', () => {
    const text = [
      '{',
      '  "mcpServers": {',
      '    "local": { "command": "node", "args": ["s.js"], "env": { "N": 1, "GONE": null } },',
      '',
      '    "remote": {',
      '      "type": "http", "url": "https://h/mcp", "headers": { "X-A": "b" }',
      '    },',
      '    "surf": { "serverUrl": "https://w/mcp" },',
      '    "old": { "type": "sse", "url": "https://o/sse" },',
      '    "socket": { "type": "ws", "url": "ws://x" },',
      '    "off": { "command": "x", "disabled": true }',
      '  }',
      '}',
    ].join('\n');
    const { servers } = parseConfig(text, 'mcp_config.json', '/p');
    expect(servers.map((s) => [s.source.name, s.source.line, s.spec.kind, s.disabled])).toEqual([
      ['local', 3, 'stdio', false],
      ['remote', 5, 'http', false],
      ['surf', 8, 'http', false],
      ['old', 9, 'sse', false],
      ['socket', 10, 'unsupported', false],
      ['off', 11, 'stdio', true],
    ]);
    expect(servers[0]?.spec).toEqual({
      kind: 'stdio',
      command: 'node',
      args: ['s.js'],
      env: { N: '1', GONE: null },
    });
    expect(servers[1]?.spec).toEqual({
      kind: 'http',
      url: 'https://h/mcp',
      headers: { 'X-A': 'b' },
    });
  });

  it('accepts comments and trailing commas as VS Code does, and a BOM', () => {
    const text =
      '\uFEFF// c\n{ "servers": { /* x */ "a": { "type": "stdio", "command": "x", }, }, }';
    const { servers } = parseConfig(text, '/p/.vscode/mcp.json', '/p');
    expect(servers.map((s) => [s.source.name, s.source.line])).toEqual([['a', 2]]);
  });

  it("reads a project's servers from ~/.claude.json under the current directory", () => {
    const text = JSON.stringify(
      {
        mcpServers: { user: { command: 'u' } },
        projects: {
          '/p': { mcpServers: { proj: { command: 'p' } } },
          '/q': { mcpServers: { other: { command: 'q' } } },
        },
      },
      null,
      2,
    );
    expect(parseConfig(text, '/u/.claude.json', '/p').servers.map((s) => s.source.name)).toEqual([
      'user',
      'proj',
    ]);
  });

  it("takes ${workspaceFolder} as the project holding .vscode/ and a user file's as the current directory", () => {
    const entry = JSON.stringify({ servers: { a: { command: 'x' } } });
    expect(parseConfig(entry, '/p/.vscode/mcp.json', '/cwd').servers[0]?.workspaceFolder).toBe(
      '/p',
    );
    expect(
      parseConfig(entry, '/u/.config/Code/User/mcp.json', '/cwd').servers[0]?.workspaceFolder,
    ).toBe('/cwd');
  });
});

describe('hostile and broken files are usage errors naming file, line and reason', () => {
  it.each([
    ['{ "mcpServers": { "a": { "command": "x" } }', "--config 'f.json' line 1: not valid JSON"],
    [
      '{\n\n "mcpServers": { "a": { "command": } } }',
      "--config 'f.json' line 3: not valid JSON (ValueExpected)",
    ],
    ['[1, 2]', 'expected a JSON object at the top'],
    ['{ "other": {} }', 'no "mcpServers" object'],
    ['{ "mcpServers": [] }', 'the server list must be an object'],
    ['{ "mcpServers": {\n "a": "node" } }', "line 2: server 'a': an entry must be an object"],
    [
      '{ "mcpServers": { "a": { "command": "x", "args": "s.js" } } }',
      '"args" must be an array of strings',
    ],
    [
      '{ "mcpServers": { "a": { "command": "x", "env": { "K": {} } } } }',
      '"env" value of K must be a string',
    ],
    [
      '{ "mcpServers": { "a": { "url": "https://h", "headers": { "H": 1 } } } }',
      '"headers" value of H',
    ],
    ['{ "mcpServers": { "a": { "args": [] } } }', 'needs a "command" (stdio) or a "url" (HTTP)'],
    [
      '{ "mcpServers": { "a": { "type": "stdio", "url": "https://h" } } }',
      '"type": "stdio" needs a "command"',
    ],
  ])('%j', (text, message) => {
    expect(usage(() => parseConfig(text, 'f.json', '/p'))).toContain(message);
  });

  it('refuses nesting too deep to parse without crashing', () => {
    const deep = `{ "mcpServers": { "a": ${'['.repeat(200_000)}${']'.repeat(200_000)} } }`;
    expect(usage(() => parseConfig(deep, 'deep.json', '/p'))).toMatch(/deep\.json/);
  });

  it('refuses a file over the size bound, a missing file and a directory', () => {
    const big = join(dir, 'big.json');
    writeFileSync(big, Buffer.alloc(MAX_CONFIG_BYTES + 1, 0x20));
    expect(usage(() => readConfig(big, dir))).toContain(`more than the ${MAX_CONFIG_BYTES}`);
    expect(usage(() => readConfig('missing.json', dir))).toBe(
      "cannot read --config 'missing.json': ENOENT",
    );
    expect(usage(() => readConfig(dir, dir))).toContain('is not a file');
  });
});

describe('placeholders', () => {
  const ctx = {
    env: { TOKEN: 'tok-123456789', EMPTY: '', STATEGUARD_INPUT_API_KEY: 'input-value-1' },
    userHome: '/home/u',
    workspaceFolder: '/w/proj',
  };

  it.each([
    ['${env:TOKEN}', 'tok-123456789'],
    ['Bearer ${TOKEN}', 'Bearer tok-123456789'],
    ['${MISSING:-fallback}', 'fallback'],
    ['${EMPTY:-fallback}', 'fallback'],
    ['${TOKEN:-fallback}', 'tok-123456789'],
    ['${EMPTY}', ''],
    ['${input:api-key}', 'input-value-1'],
    ['${workspaceFolder}/s.js', '/w/proj/s.js'],
    ['${workspaceFolderBasename}', 'proj'],
    ['${userHome}${/}x', `/home/u${sep}x`],
    ['$TOKEN and $', '$TOKEN and $'],
  ])('%s → %s', (text, value) => {
    expect(substitute(text, ctx)).toMatchObject({ value, unresolved: [] });
  });

  it.each([
    ['${MISSING}', ['${MISSING}']],
    ['${env:MISSING} ${input:other}', ['${env:MISSING}', '${input:other}']],
    ['${file:/etc/passwd}', ['${file:/etc/passwd}']],
    ['${command:pick}', ['${command:pick}']],
    ['${A:-${TOKEN}}', ['${A:-${TOKEN}}']],
    ['x ${TOKEN', ['${TOKEN']],
    ['${env:bad name}', ['${env:bad name}']],
  ])('%s stays unresolved', (text, unresolved) => {
    expect(substitute(text, ctx).unresolved).toEqual(unresolved);
  });

  it('reports the values it took from the environment, to be redacted', () => {
    expect(substitute('${TOKEN}-${workspaceFolder}', ctx).secrets).toEqual([
      { name: 'TOKEN', value: 'tok-123456789' },
    ]);
  });

  it('cuts a huge placeholder in what it reports', () => {
    const [shown] = substitute(`\${${'x'.repeat(10_000)}:y}`, ctx).unresolved;
    expect(shown?.length).toBeLessThanOrEqual(80);
  });
});

describe('the minimal environment', () => {
  const env = {
    PATH: '/bin',
    HOME: '/home/u',
    LANG: 'C.UTF-8',
    AWS_SECRET_ACCESS_KEY: 'x',
    STATEGUARD_IDENTITY_A: 'a',
    SHELL: '() { :; }; echo pwned',
  };

  it('passes PATH, HOME and the locale, nothing else, and no exported shell function', () => {
    expect(minimalEnv(env, 'linux')).toEqual({ PATH: '/bin', HOME: '/home/u', LANG: 'C.UTF-8' });
  });

  it('on Windows matches names in any case and keeps what a command needs to be found', () => {
    const win = { Path: 'C:\\bin', PATHEXT: '.EXE', SystemRoot: 'C:\\Windows', SECRET: 's' };
    expect(minimalEnv(win, 'win32')).toEqual({
      PATH: 'C:\\bin',
      PATHEXT: '.EXE',
      SYSTEMROOT: 'C:\\Windows',
    });
  });
});

describe('well-known locations', () => {
  it.each([
    [
      'darwin',
      '/h/Library/Application Support/Claude/claude_desktop_config.json',
      '/h/Library/Application Support/Code/User/mcp.json',
    ],
    ['linux', '/h/.config/Claude/claude_desktop_config.json', '/h/.config/Code/User/mcp.json'],
  ] as const)('on %s', (platform, desktop, vscode) => {
    const files = wellKnownLocations('/p', '/h', {}, platform).map((l) => l.file);
    expect(files).toEqual([
      '/p/.mcp.json',
      '/p/.cursor/mcp.json',
      '/p/.vscode/mcp.json',
      '/h/.claude.json',
      '/h/.cursor/mcp.json',
      vscode,
      '/h/.codeium/windsurf/mcp_config.json',
      desktop,
    ]);
  });

  it('follows XDG_CONFIG_HOME on Linux', () => {
    const files = wellKnownLocations('/p', '/h', { XDG_CONFIG_HOME: '/x' }, 'linux').map(
      (l) => l.file,
    );
    expect(files).toContain('/x/Claude/claude_desktop_config.json');
  });
});

describe("each server's plan", () => {
  const options = (env: NodeJS.ProcessEnv = {}): PlanOptions => ({
    env: { PATH: '/bin', ...env },
    userHome: '/h',
    identities: {},
    carrier: 'authorization',
  });
  const server = (entry: unknown, name = 'My-Server.1') =>
    parseConfig(JSON.stringify({ mcpServers: { [name]: entry } }), '/p/.mcp.json', '/p')
      .servers[0]!;

  it('starts a stdio server in its project, over the minimal env, its env file under its own env', () => {
    const envFile = join(dir, 'server.env');
    writeFileSync(
      envFile,
      '# c\nexport FROM_FILE="a b"\nSHARED=file\nQUOTED=\'x # y\'\nBARE=v # note\n',
    );
    const plan = planServer(
      server({ command: 'node', args: ['s.js'], envFile, env: { SHARED: 'entry', PATH: null } }),
      options({ SECRET: 's' }),
    );
    expect(plan.target).toEqual({
      kind: 'stdio',
      command: 'node',
      args: ['s.js'],
      cwd: '/p',
      env: { FROM_FILE: 'a b', SHARED: 'entry', QUOTED: 'x # y', BARE: 'v' },
    });
  });

  it('does not start a server whose env file is missing', () => {
    const plan = planServer(server({ command: 'node', envFile: '/nonexistent/.env' }), options());
    expect(plan.target).toBeUndefined();
    expect(plan.problem).toContain("its envFile '/nonexistent/.env' cannot be read (ENOENT)");
  });

  it('takes per-server identities over the global ones', () => {
    const plan = planServer(server({ command: 'x' }), {
      ...options({ [identityVariable('A', 'My-Server.1')]: 'own-a' }),
      identities: { A: 'global-a', B: 'global-b' },
    });
    expect(identityVariable('A', 'My-Server.1')).toBe('STATEGUARD_IDENTITY_A__MY_SERVER_1');
    expect(plan.identities).toEqual({ A: 'own-a', B: 'global-b' });
  });

  it("takes an entry's bearer token as identity A, and sends its other headers but not the scanner's", () => {
    const plan = planServer(
      server({
        type: 'http',
        url: 'http://127.0.0.1:1/mcp',
        headers: {
          Authorization: 'Bearer ${TOKEN}',
          'X-Tenant': 'acme',
          'Content-Type': 'text/plain',
        },
      }),
      options({ TOKEN: 'token-value-123' }),
    );
    expect(plan.identities).toEqual({ A: 'token-value-123' });
    expect(plan.headers).toEqual([{ name: 'X-Tenant', value: 'acme' }]);
    expect(plan.warnings).toEqual([
      "server 'My-Server.1': its Content-Type header is not sent; the scanner sets it",
    ]);
    expect(plan.secrets).toContainEqual({ placeholder: '<env TOKEN>', value: 'token-value-123' });
  });

  it('does not scan a url that is not http(s), nor a header that spans lines', () => {
    expect(planServer(server({ url: 'file:///etc/passwd' }), options()).problem).toContain(
      'not an http(s) URL',
    );
    expect(
      planServer(
        server({ url: 'http://h/mcp', headers: { X: '${V}' } }),
        options({ V: 'a\r\nB: c' }),
      ).problem,
    ).toContain("its header 'X' is not a valid one-line header");
  });

  it('reports an SSE-only entry and an unknown transport as not scanned', () => {
    expect(planServer(server({ type: 'sse', url: 'http://h/sse' }), options()).problem).toMatch(
      /^not scanned: an SSE-only entry/,
    );
    expect(planServer(server({ type: 'ws', url: 'ws://h' }), options()).problem).toMatch(
      /^not scanned: transport type 'ws'/,
    );
  });

  it('parses dotenv lines', () => {
    expect(parseEnvFile('A=1\n  B = "x\\ny" \n#C=3\nnot a line\n')).toEqual({ A: '1', B: 'x\ny' });
  });
});

describe('the --config flags', () => {
  const place = { cwd: dir, home: dir };
  const config = join(dir, 'flags.json');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    config,
    JSON.stringify({ mcpServers: { a: { command: 'x' }, b: { command: 'y', disabled: true } } }),
  );

  it.each([
    [['--server', 'a'], '--server applies to --config only'],
    [['--concurrency', '2'], '--concurrency applies to --config only'],
    [['--config', config, '--concurrency', '0'], '--concurrency needs a positive integer'],
    [['--config', config, '--concurrency', '65'], '--concurrency is at most 64'],
    [['--config', config, '--peer', 'http://h/mcp'], '--peer does not combine with --config'],
    [['--config', config, '--header', 'X: y'], '--header does not combine with --config'],
    [['--config', config, '--plan'], '--plan takes one target (--http or --stdio)'],
    [
      ['--config', config, '--format', 'cert-x-gen'],
      '--format cert-x-gen has no report for several servers yet',
    ],
  ])('%j', (argv, message) => {
    expect(
      usage(() =>
        parseScanArgs(['--stdio', 'x', ...argv].slice(argv[0] === '--config' ? 2 : 0), {}, place),
      ),
    ).toContain(message);
  });

  it('takes a bare --config (last, or before another flag) as the well-known locations', () => {
    writeFileSync(
      join(dir, '.mcp.json'),
      JSON.stringify({ mcpServers: { found: { command: 'x' } } }),
    );
    for (const argv of [['--config'], ['--config', '--quiet']]) {
      const args = parseScanArgs(argv, {}, place);
      if (args === 'help') throw new Error('help');
      expect(args.config?.found?.map((l) => l.file)).toContain(join(dir, '.mcp.json'));
    }
  });

  it('leaves disabled entries out unless --server names them', () => {
    const all = parseScanArgs(['--config', config], {}, place);
    const named = parseScanArgs(['--config', config, '--server', 'b'], {}, place);
    if (all === 'help' || named === 'help') throw new Error('help');
    expect(all.config?.plans.map((p) => p.source.name)).toEqual(['a']);
    expect(all.config?.disabled).toEqual([`b (${config}:1)`]);
    expect(named.config?.plans.map((p) => p.source.name)).toEqual(['b']);
  });
});

describe('per-server identities go to one server only', () => {
  const place = { cwd: dir, home: dir };
  const twoFiles = (): [string, string] => {
    const first = join(dir, 'identity-first.json');
    const second = join(dir, 'identity-second.json');
    writeFileSync(
      first,
      JSON.stringify({
        mcpServers: { github: { command: 'x' }, GitHub: { url: 'http://127.0.0.1:1/mcp' } },
      }),
    );
    writeFileSync(
      second,
      JSON.stringify({ mcpServers: { 'git-hub': { command: 'y' }, github: { command: 'z' } } }),
    );
    return [first, second];
  };
  const failure = (argv: string[], env: NodeJS.ProcessEnv): string => {
    try {
      parseScanArgs(argv, env, place);
    } catch (error) {
      if (error instanceof ProbeUsageError) return error.message;
      throw error;
    }
    return 'no usage error';
  };

  it.each([
    ['two entries of one file', (f: string) => ['--config', f], ["'github' (", "'GitHub' ("]],
    [
      'one name declared in two files',
      (f: string, s: string) => ['--config', f, '--config', s, '--server', 'github'],
      ['identity-first.json:1', 'identity-second.json:1'],
    ],
  ] as const)('%s that fold to a set variable: a usage error naming both', (_, argv, named) => {
    const [first, second] = twoFiles();
    const message = failure([...argv(first, second)], {
      STATEGUARD_IDENTITY_A__GITHUB: 'secret-a',
    });
    expect(message).toContain('STATEGUARD_IDENTITY_A__GITHUB would go to 2 servers');
    for (const n of named) expect(message).toContain(n);
    expect(message).not.toContain('secret-a');
  });

  it('gives the variable to the one entry it names when no other folds to it', () => {
    const [first] = twoFiles();
    const env = { STATEGUARD_IDENTITY_B__GITHUB: 'own-b' };
    const args = parseScanArgs(['--config', first, '--server', 'GitHub'], env, place);
    if (args === 'help') throw new Error('help');
    expect(args.config?.plans.map((p) => [p.source.name, p.identities.B])).toEqual([
      ['GitHub', 'own-b'],
    ]);
  });

  it('lets names that fold alike be when no such variable is set', () => {
    const [first] = twoFiles();
    const args = parseScanArgs(['--config', first], { STATEGUARD_IDENTITY_A__OTHER: 'x' }, place);
    if (args === 'help') throw new Error('help');
    expect(args.config?.plans.map((p) => p.source.name)).toEqual(['github', 'GitHub']);
  });
});

describe('a baseline over several servers', () => {
  const server = (name: string, display: string, verdict: 'confirmed' | 'refuted'): RunReport => ({
    ...report,
    server: { name, file: '.mcp.json', line: 1, format: 'claude-code' },
    target: { kind: 'stdio', display },
    probes: report.probes.map((p) => (p.id === 'state/tamper' ? { ...p, verdict } : p)),
  });

  it('keeps a bare entry that one server still needs, and stales a targeted one where refuted', () => {
    const baseline = parseBaseline('state/tamper\nstate/tamper@stdio:b\n', 'b.txt');
    const [a, b] = applyBaselineToServers(
      [server('a', 'stdio:a', 'confirmed'), server('b', 'stdio:b', 'refuted')],
      baseline,
    );
    expect(a?.baseline).toMatchObject({ baselined: ['state/tamper'], stale: [] });
    expect(b?.baseline).toMatchObject({ baselined: [], stale: ['state/tamper@stdio:b'] });
  });

  it('names an entry unmatched only when no server matched it, once, and fails the run only when strict', () => {
    const text = 'state/tamper@b\nstate/tamper@stdio:gone\nstate/tamper@nobody\n';
    const servers = [server('a', 'stdio:a', 'refuted'), server('b', 'stdio:b', 'confirmed')];
    const [a, b] = applyBaselineToServers(servers, parseBaseline(text, 'b.txt'));
    expect(a?.baseline?.unmatched).toEqual(['state/tamper@stdio:gone', 'state/tamper@nobody']);
    expect(failsRun(a as RunReport)).toBe(false);
    expect(b?.baseline).toMatchObject({ baselined: ['state/tamper'], unmatched: [] });
    expect(failsRun(b as RunReport)).toBe(false);
    const strict = applyBaselineToServers(servers, {
      ...parseBaseline(text, 'b.txt'),
      strict: true,
    });
    expect(failsRun(strict[0] as RunReport)).toBe(true);
    expect(failsRun(strict[1] as RunReport)).toBe(false);
  });

  it('lets an entry written for one loopback server accept nothing on another', () => {
    const confirmed = (name: string, display: string): RunReport => ({
      ...server(name, display, 'confirmed'),
      target: { kind: 'http', display },
    });
    const servers = [
      confirmed('billing', 'http://127.0.0.1:3001/mcp'),
      confirmed('notes', 'http://localhost:3002/mcp'),
    ];
    const byTarget = parseBaseline('state/tamper@http://127.0.0.1:3001/mcp\n', 'b.txt');
    const [billing, notes] = applyBaselineToServers(servers, byTarget);
    expect(billing?.baseline?.baselined).toEqual(['state/tamper']);
    expect(notes?.baseline?.baselined).toEqual([]);
    expect(failsRun(notes as RunReport)).toBe(true);
    const [, byName] = applyBaselineToServers(
      servers,
      parseBaseline('state/tamper@billing\n', 'b'),
    );
    expect(failsRun(byName as RunReport)).toBe(true);
    // A single-target run still folds loopback: a fixture on a fresh port keeps its baseline.
    const { server: _, ...single } = servers[1] as RunReport;
    expect(failsRun(applyBaseline(single, byTarget))).toBe(false);
  });

  it('stales a bare entry that no server confirms any more', () => {
    const baseline = parseBaseline('state/tamper\n', 'b.txt');
    const reports = applyBaselineToServers([server('a', 'stdio:a', 'refuted')], baseline);
    expect(reports[0]?.baseline?.stale).toEqual(['state/tamper']);
  });
});

describe('the exit code over servers', () => {
  const only = (...servers: RunReport[]): CombinedReport => ({ ...combined, servers });
  const [confirmed, baselinedStale, unstarted, sse] = combined.servers as [
    RunReport,
    RunReport,
    RunReport,
    RunReport,
  ];
  const clean: RunReport = {
    ...confirmed,
    probes: confirmed.probes.filter((p) => p.verdict === 'refuted'),
  };
  const errored: RunReport = {
    ...confirmed,
    probes: confirmed.probes.filter((p) => p.verdict !== 'confirmed'),
  };

  it.each([
    ['a confirmed finding anywhere', [clean, errored, confirmed], 1],
    ['a stale baseline entry', [clean, baselinedStale], 1],
    ['an errored probe', [clean, errored], 3],
    ['a server not started', [clean, unstarted], 4],
    ['nothing scanned at all', [sse], 4],
    [
      'a server where every probe errored',
      [clean, { ...errored, probes: errored.probes.filter((p) => p.verdict === 'errored') }],
      4,
    ],
    ['clean servers beside an SSE-only entry', [clean, sse], 0],
  ] as const)('%s', (_, servers, code) => {
    expect(combinedExitCode(only(...servers))).toBe(code);
  });

  it.each([
    ['a server not started', [clean, unstarted], 3],
    ['nothing scanned at all', [sse], 3],
  ] as const)('%s exits as before with --allow-undecided', (_, servers, code) => {
    expect(combinedExitCode(only(...servers), true)).toBe(code);
  });
});

describe('the pool', () => {
  it('never has more than its limit in flight, and keeps the order of results', async () => {
    let inFlight = 0;
    let most = 0;
    const tasks = Array.from({ length: 10 }, (_, i) => async () => {
      inFlight++;
      most = Math.max(most, inFlight);
      await new Promise<void>((resolve) => setImmediate(resolve));
      inFlight--;
      return i;
    });
    expect(await pool(tasks, 3)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(most).toBe(3);
  });
});
