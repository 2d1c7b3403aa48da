/**
 * The Action's inputs: how each becomes a `stateguard scan` argument, and action.yml kept true to
 * the script (every input the script reads is passed to it; it builds and runs its own checkout).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { ActionInputError, readInputs, scanArgv } from '../../src/action/inputs.js';
import { gate } from '../../src/action/run.js';

const read = (path: string): string =>
  readFileSync(fileURLToPath(new URL(`../../${path}`, import.meta.url)), 'utf8');
const ACTION = read('action.yml');

const argv = (inputs: Record<string, string>): string[] =>
  scanArgv(
    readInputs(
      Object.fromEntries(
        Object.entries(inputs).map(([k, v]) => [`INPUT_${k.toUpperCase().replace(/-/g, '_')}`, v]),
      ),
    ),
    'r.json',
  );

describe('the Action inputs', () => {
  it('scan a URL over HTTP and anything else as a stdio command line', () => {
    expect(argv({ target: 'https://mcp.example/mcp' }).slice(0, 3)).toEqual([
      'scan',
      '--http',
      'https://mcp.example/mcp',
    ]);
    expect(argv({ target: 'stdio: node server.js --flag' }).slice(0, 3)).toEqual([
      'scan',
      '--stdio',
      'node server.js --flag',
    ]);
  });

  it('turn config, server, concurrency, probes, baseline and args into flags, JSON last', () => {
    expect(
      argv({
        config: '.mcp.json\n.vscode/mcp.json',
        server: 'payments, search',
        concurrency: '2',
        probes: 'state/tamper,handle/cross-principal',
        baseline: '.stateguard-baseline',
        args: "--timeout 10s --header 'X-Tenant: acme' --all --evidence none",
      }),
    ).toEqual([
      'scan',
      '--config',
      '.mcp.json',
      '--config',
      '.vscode/mcp.json',
      '--server',
      'payments',
      '--server',
      'search',
      '--concurrency',
      '2',
      '--probe',
      'state/tamper',
      '--probe',
      'handle/cross-principal',
      '--baseline',
      '.stateguard-baseline',
      '--timeout',
      '10s',
      '--header',
      'X-Tenant: acme',
      '--format',
      'json',
      '--output',
      'r.json',
    ]);
  });

  it('keep --all and --evidence for the reports the action renders', () => {
    const inputs = readInputs({
      INPUT_TARGET: 'http://x/mcp',
      INPUT_ARGS: '--all --evidence=none',
    });
    expect(inputs.render).toEqual({ all: true, evidence: 'none' });
    expect(inputs.args).toEqual([]);
  });

  it('keep identities out of the arguments, exactly as given', () => {
    const inputs = readInputs({
      INPUT_TARGET: 'http://x/mcp',
      INPUT_IDENTITY_A: ' spaced secret ',
      INPUT_IDENTITY_B: 'b',
    });
    expect(inputs.identityA).toBe(' spaced secret ');
    expect(scanArgv(inputs, 'r.json').join(' ')).not.toContain('secret');
  });

  it.each([
    [{ INPUT_TARGET: 'stdio:' }, 'target: stdio: needs a command line'],
    [{ INPUT_TARGET: 'x', INPUT_ARGS: '--output=x.json' }, 'args: --output=x.json is set'],
    [{ INPUT_TARGET: 'x', INPUT_ARGS: '--evidence loud' }, "--evidence 'loud'"],
  ])('refuse %j', (env, message) => {
    expect(() => readInputs(env)).toThrow(ActionInputError);
    expect(() => readInputs(env)).toThrow(message);
  });

  it.each([
    ['confirmed', 0, 0],
    ['confirmed', 1, 1],
    ['confirmed', 3, 0],
    ['confirmed', 4, 4],
    ['errored', 4, 4],
    ['never', 4, 0],
    ['errored', 3, 3],
    ['errored', 1, 1],
    ['never', 1, 0],
    ['never', 2, 2],
  ] as const)('fail-on %s turns scanner exit %i into step exit %i', (failOn, code, exit) => {
    expect(gate(failOn, code)).toBe(exit);
  });
});

describe('what the Action lets the scan call', () => {
  const workspace = mkdtempSync(join(tmpdir(), 'sg-action-ws-'));
  writeFileSync(join(workspace, 'server.js'), '');
  afterAll(() => rmSync(workspace, { recursive: true, force: true }));
  const argvIn = (inputs: Record<string, string>): string[] =>
    scanArgv(
      readInputs({
        GITHUB_WORKSPACE: workspace,
        ...Object.fromEntries(
          Object.entries(inputs).map(([k, v]) => [
            `INPUT_${k.toUpperCase().replace(/-/g, '_')}`,
            v,
          ]),
        ),
      }),
      'r.json',
    );

  it('turns allow-tool into --allow-tool, one per name', () => {
    const args = argvIn({ target: 'https://mcp.example/mcp', 'allow-tool': 'charge_card, refund' });
    expect(args.join(' ')).toContain('--allow-tool charge_card --allow-tool refund');
    expect(args).not.toContain('--include-destructive');
  });

  it('scans the whole surface of a server it starts from the repository, and only that', () => {
    expect(argvIn({ target: 'node server.js' })).toContain('--include-destructive');
    expect(argvIn({ target: 'npx -y @acme/mcp-server' })).not.toContain('--include-destructive');
    expect(argvIn({ target: 'node ../outside.js' })).not.toContain('--include-destructive');
    expect(argvIn({ target: 'https://127.0.0.1:3000/mcp' })).not.toContain('--include-destructive');
    expect(argvIn({ target: 'node server.js', surface: 'default' })).not.toContain(
      '--include-destructive',
    );
    expect(argvIn({ target: 'https://mcp.example/mcp', surface: 'full' })).toContain(
      '--include-destructive',
    );
    const inputs = readInputs({ GITHUB_WORKSPACE: workspace, INPUT_TARGET: 'node server.js' });
    expect(inputs.surface.why).toMatch(/starts the server from the repository \(server\.js\)/);
  });

  it('refuses a surface it does not know', () => {
    expect(() => argvIn({ target: 'node server.js', surface: 'everything' })).toThrow(
      /surface: 'everything' is not one of auto, default, full/,
    );
  });
});

describe('the start inputs', () => {
  const read = (inputs: Record<string, string>) =>
    readInputs(
      Object.fromEntries(
        Object.entries(inputs).map(([k, v]) => [`INPUT_${k.toUpperCase().replace(/-/g, '_')}`, v]),
      ),
    );

  it('wait on the target URL by default, for 60 s', () => {
    expect(read({ target: 'http://127.0.0.1:3000/mcp', start: 'node server.js' }).start).toEqual({
      command: 'node server.js',
      host: '127.0.0.1',
      port: 3000,
      timeoutMs: 60_000,
    });
  });

  it('take wait-for as host:port, [v6]:port or a URL, and wait-timeout as a duration', () => {
    const start = (waitFor: string) =>
      read({ target: 'http://x/mcp', start: 's', 'wait-for': waitFor, 'wait-timeout': '5s' }).start;
    expect(start('localhost:8080')).toMatchObject({
      host: 'localhost',
      port: 8080,
      timeoutMs: 5000,
    });
    expect(start('[::1]:8080')).toMatchObject({ host: '::1', port: 8080 });
    expect(start('https://127.0.0.1/mcp')).toMatchObject({ host: '127.0.0.1', port: 443 });
  });

  it.each([
    [{ target: 'node server.js', start: 's' }, 'start: give wait-for'],
    [{ target: 'http://x/mcp', 'wait-for': 'x:1' }, 'wait-for and wait-timeout need start'],
    [{ target: 'http://x/mcp', start: 's', 'wait-for': 'x' }, "wait-for: 'x' is not host:port"],
    [{ target: 'http://x/mcp', start: 's', 'wait-for': 'x:70000' }, 'is not host:port'],
    [{ target: 'http://x/mcp', start: 's', 'wait-timeout': '60' }, 'wait-timeout needs a unit'],
  ])('refuse %j', (inputs, message) => {
    expect(() => read(inputs)).toThrow(ActionInputError);
    expect(() => read(inputs)).toThrow(message);
  });
});

describe('action.yml', () => {
  const section = (name: string): string => {
    const start = ACTION.indexOf(`\n${name}:\n`);
    const end = ACTION.indexOf('\n\n', start + 1);
    return ACTION.slice(start, end === -1 ? undefined : end);
  };
  const inputs = [...section('inputs').matchAll(/^ {2}([a-z-]+):$/gm)].map((m) => m[1] ?? '');

  it('passes every input the script reads to it as INPUT_*', () => {
    const own = ['sarif-upload', 'category', 'node-version'];
    for (const name of inputs.filter((n) => !own.includes(n))) {
      const env = `INPUT_${name.toUpperCase().replace(/-/g, '_')}: \${{ inputs.${name} }}`;
      expect(ACTION, name).toContain(env);
    }
    expect(inputs).toEqual(expect.arrayContaining(['target', 'config', 'identity-a', 'fail-on']));
  });

  it('builds its own checkout with the Node.js it sets up, runs from it, and uploads with the official action', () => {
    // stateguard is not on the npm registry: nothing is installed from it.
    expect(ACTION).not.toMatch(/npm install[^\n]*stateguard@/);
    expect(ACTION).toContain('uses: actions/setup-node@v4');
    expect(ACTION).toContain('node-version: ${{ inputs.node-version }}');
    expect(ACTION).toMatch(
      / {6}working-directory: \$\{\{ github\.action_path \}\}\n {6}run: npm ci --no-audit --no-fund\n/,
    );
    expect(ACTION).toContain('STATEGUARD_ACTION_PATH: ${{ github.action_path }}');
    expect(ACTION).toContain('run: node "$STATEGUARD_ACTION_PATH/dist/action/main.js"');
    expect(ACTION).toContain('uses: github/codeql-action/upload-sarif@v4');
  });

  it('declares every output the script writes, from the scan step', () => {
    const outputs = [...section('outputs').matchAll(/^ {2}([a-z-]+):$/gm)].map((m) => m[1]);
    expect(outputs.sort()).toEqual(
      [
        'exit-code',
        'sarif-file',
        'report-file',
        'markdown-file',
        'confirmed',
        'baselined',
        'refuted',
        'skipped',
        'errored',
        'undecided',
      ].sort(),
    );
    for (const name of outputs)
      expect(ACTION).toContain(`value: \${{ steps.scan.outputs.${name} }}`);
  });
});
