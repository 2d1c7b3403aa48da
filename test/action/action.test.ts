/**
 * The GitHub Action's scan step, run as a runner runs it: a child process with `INPUT_*`,
 * `GITHUB_WORKSPACE`, `RUNNER_TEMP`, `GITHUB_OUTPUT` and `GITHUB_STEP_SUMMARY`, in the workspace,
 * against a fixture twin this test starts. It must leave a valid SARIF file with locations, a job
 * summary and outputs, exit by `fail-on`, and never show an identity anywhere but in the
 * `::add-mask::` command that hides it.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { startFixtureHttp, type FixtureHttp } from '../../src/fixture/http.js';
import type { Log as SarifLog } from 'sarif';
import { githubProblems } from '../report/sarif-github.js';
import { nodeCommand } from '../helpers/cli.js';
import { schemaProblems } from '../report/sarif-validators.js';

// The action's entry in this run's build of the source (test/helpers/built.ts): it starts the
// scanner beside it, the build's CLI, so neither loads through tsx.
const MAIN = join(inject('builtRoot'), 'src/action/main.js');
const SECRET_A = 'action-alice-secret-7c2d';
const SECRET_B = 'action-bob-secret-e01f';
// Two probes the flawed twin confirms over HTTP, and nothing slow.
const PROBES = 'handle/cross-principal, state/tamper';

interface StepRun {
  code: number | null;
  stdout: string;
  stderr: string;
  outputs: Record<string, string>;
  summary: string;
}

const root = mkdtempSync(join(tmpdir(), 'stateguard-action-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** `name<<delimiter … delimiter` entries of a GITHUB_OUTPUT file. */
function parseOutputs(text: string): Record<string, string> {
  const outputs: Record<string, string> = {};
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const m = /^([^<]+)<<(.+)$/.exec(lines[i] ?? '');
    if (m === null) continue;
    const end = lines.indexOf(m[2] ?? '', i + 1);
    outputs[m[1] ?? ''] = lines.slice(i + 1, end).join('\n');
    i = end;
  }
  return outputs;
}

let runs = 0;
/** Runs the step in a fresh workspace with these inputs, as a runner would. */
function runStep(
  inputs: Record<string, string>,
  prepare?: (ws: string) => void,
  job: NodeJS.ProcessEnv = {},
): Promise<StepRun> {
  const base = join(root, `run-${++runs}`);
  const workspace = join(base, 'workspace');
  const temp = join(base, 'runner-temp');
  mkdirSync(workspace, { recursive: true });
  mkdirSync(temp, { recursive: true });
  prepare?.(workspace);
  const outputFile = join(base, 'output');
  const summaryFile = join(base, 'summary');
  writeFileSync(outputFile, '');
  writeFileSync(summaryFile, '');
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    NO_COLOR: '1',
    GITHUB_ACTIONS: 'true',
    GITHUB_WORKSPACE: workspace,
    RUNNER_TEMP: temp,
    GITHUB_OUTPUT: outputFile,
    GITHUB_STEP_SUMMARY: summaryFile,
    ...job,
    ...Object.fromEntries(
      Object.entries(inputs).map(([k, v]) => [`INPUT_${k.toUpperCase().replace(/-/g, '_')}`, v]),
    ),
  };
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [MAIN], {
      cwd: workspace,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const killer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('close', (code) => {
      clearTimeout(killer);
      resolve({
        code,
        stdout,
        stderr,
        outputs: parseOutputs(readFileSync(outputFile, 'utf8')),
        summary: readFileSync(summaryFile, 'utf8'),
      });
    });
  });
}

/** Every place a secret could leak to, but the masking commands themselves. */
function expectNoSecret(run: StepRun): void {
  const stdout = run.stdout
    .split('\n')
    .filter((l) => !l.startsWith('::add-mask::'))
    .join('\n');
  const files = [
    run.outputs['sarif-file'],
    run.outputs['report-file'],
    run.outputs['markdown-file'],
  ]
    .filter((f): f is string => f !== undefined)
    .map((f) => readFileSync(f, 'utf8'));
  for (const text of [stdout, run.stderr, run.summary, JSON.stringify(run.outputs), ...files]) {
    expect(text).not.toContain(SECRET_A);
    expect(text).not.toContain(SECRET_B);
  }
}

let flawed: FixtureHttp;
let fixed: FixtureHttp;
beforeAll(async () => {
  flawed = await startFixtureHttp({ mode: 'flawed' });
  fixed = await startFixtureHttp({ mode: 'fixed' });
});
afterAll(async () => {
  await flawed?.close();
  await fixed?.close();
});

describe('the GitHub Action step', () => {
  it('scans a flawed twin: SARIF with locations, a job summary, outputs, and exit 1 on confirmed', async () => {
    const run = await runStep({
      target: flawed.url,
      'identity-a': SECRET_A,
      'identity-b': SECRET_B,
      probes: PROBES,
    });
    expect(run.code, run.stderr).toBe(1);
    expect(run.stdout).toContain(`::add-mask::${SECRET_A}`);
    expect(run.stdout).toContain(`::add-mask::${SECRET_B}`);
    expect(run.stdout).toMatch(/::error title=stateguard::2 confirmed/);
    expect(run.outputs).toMatchObject({
      'exit-code': '1',
      confirmed: '2',
      refuted: '0',
      errored: '0',
    });
    const text = readFileSync(run.outputs['sarif-file'] ?? '', 'utf8');
    const log = JSON.parse(text);
    expect(schemaProblems(log)).toEqual([]);
    expect(githubProblems(log, text)).toEqual([]);
    const uris = log.runs[0].results.map(
      (r: any) => r.locations[0].physicalLocation.artifactLocation.uri, // eslint-disable-line @typescript-eslint/no-explicit-any
    );
    expect(uris).toHaveLength(2);
    for (const uri of uris)
      expect(uri).toMatch(/^\.stateguard\/http-127\.0\.0\.1-\d+-mcp-[0-9a-f]{8}$/);
    expect(run.summary).toMatch(/^## stateguard: http:&#47;&#47;127\.0\.0\.1/);
    // A server it did not start: the plan's default, said where the reader looks.
    expect(run.summary).toContain("**Surface: the call plan's default.**");
    expect(run.summary).toContain('`state/tamper`');
    expect(readFileSync(run.outputs['markdown-file'] ?? '', 'utf8')).toBe(
      run.summary.trimEnd() + '\n',
    );
    expectNoSecret(run);
  }, 90_000);

  it.each([
    ['never', 0],
    ['errored', 1],
  ])(
    'exits by fail-on %s (%i) on the same confirmed findings',
    async (failOn, code) => {
      const run = await runStep({ target: flawed.url, probes: PROBES, 'fail-on': failOn });
      expect(run.code, run.stderr).toBe(code);
      expect(run.outputs['exit-code']).toBe('1');
    },
    90_000,
  );

  it('passes a fixed twin, and points results at --sarif-location in the workspace', async () => {
    const run = await runStep(
      {
        target: fixed.url,
        probes: PROBES,
        'sarif-location': 'deploy/mcp.yaml:12',
        args: '--all',
        'identity-a': SECRET_A,
      },
      (ws) => mkdirSync(join(ws, 'deploy')),
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.outputs).toMatchObject({ 'exit-code': '0', confirmed: '0', refuted: '2' });
    const log = JSON.parse(readFileSync(run.outputs['sarif-file'] ?? '', 'utf8'));
    const location = log.runs[0].results[0].locations[0].physicalLocation;
    expect(location).toEqual({
      artifactLocation: { uri: 'deploy/mcp.yaml', uriBaseId: '%SRCROOT%' },
      region: { startLine: 12 },
    });
    expect(run.summary).toContain('✅ refuted');
    expectNoSecret(run);
  }, 90_000);

  it('scans the servers of a config in the workspace, each result at its entry', async () => {
    const config = JSON.stringify(
      { mcpServers: { clean: { url: fixed.url }, leaky: { url: flawed.url } } },
      null,
      2,
    );
    const run = await runStep(
      {
        config: '.cursor/mcp.json',
        probes: PROBES,
        'identity-a': SECRET_A,
        'identity-b': SECRET_B,
      },
      (ws) => {
        mkdirSync(join(ws, '.cursor'));
        writeFileSync(join(ws, '.cursor/mcp.json'), config);
      },
    );
    expect(run.code, run.stderr).toBe(1);
    expect(run.outputs).toMatchObject({ 'exit-code': '1', confirmed: '2', refuted: '2' });
    const text = readFileSync(run.outputs['sarif-file'] ?? '', 'utf8');
    const log = JSON.parse(text) as SarifLog;
    expect(schemaProblems(log)).toEqual([]);
    expect(githubProblems(log, text)).toEqual([]);
    const places = log.runs[0]?.results?.map((r) => {
      const at = r.locations?.[0]?.physicalLocation;
      return `${at?.artifactLocation?.uri}:${at?.region?.startLine}`;
    });
    // Only the flawed entry (its key on line 6) has results: the clean one's are passes, not shown.
    expect(places).toEqual(['.cursor/mcp.json:6', '.cursor/mcp.json:6']);
    expect(run.summary).toContain('leaky');
    expect(run.summary).toContain('clean');
    expectNoSecret(run);
  }, 90_000);

  it('relays no workflow command that a config file planted (a key, an envFile path, a placeholder)', async () => {
    // Each value is one that reaches stderr: a problem text, a warning, a progress line.
    const config = JSON.stringify({
      mcpServers: {
        'evil\n::error title=forged::from a key': {
          url: fixed.url,
          headers: { 'Mcp-Method': 'x' },
        },
        'file\r::warning::from a CR': {
          command: 'node',
          envFile: 'missing\n::stop-commands::forgedtoken\n::error::after stop',
        },
        'placeholder\n##[error]legacy': { command: '${input:x\n::error::from a placeholder}' },
      },
    });
    const run = await runStep({ config: '.mcp.json', probes: 'state/tamper' }, (ws) =>
      writeFileSync(join(ws, '.mcp.json'), config),
    );
    expect(run.outputs['exit-code'], run.stderr).toBe('4');
    const lines = `${run.stdout}\n${run.stderr}`.split(/\r\n|\r|\n/);
    // The step's own commands are the only ones, and the planted texts are there, inert.
    const commands = lines.filter((l) => /^\s*(::|##\[)/.test(l));
    expect(commands.length).toBeGreaterThan(0);
    for (const c of commands)
      expect(c).toMatch(/^::(add-mask|error title=stateguard|warning title=stateguard)::/);
    expect(run.stderr).toContain('forgedtoken');
    expect(run.stderr).toContain('from a placeholder');
    expect(run.stderr).toContain('from a key');
    expect(commands.join('\n')).not.toContain('forged');
  }, 90_000);

  it.each([
    ['errored', '', 4, '4'],
    ['confirmed', '', 4, '4'],
    ['never', '', 0, '4'],
    ['confirmed', '--allow-undecided', 0, '3'],
  ])(
    'exits by fail-on %s %s (%i) when the target cannot be reached (nothing decided: scanner exit %s)',
    async (failOn, args, code, scanner) => {
      const run = await runStep({
        target: 'http://127.0.0.1:1/mcp',
        probes: 'state/tamper',
        'fail-on': failOn,
        ...(args === '' ? {} : { args }),
      });
      expect(run.code, run.stderr).toBe(code);
      expect(run.outputs).toMatchObject({ 'exit-code': scanner, errored: '1', undecided: '1' });
      if (code === 4) expect(run.stdout).toMatch(/::error title=stateguard::nothing decided/);
      const text = readFileSync(run.outputs['sarif-file'] ?? '', 'utf8');
      expect(githubProblems(JSON.parse(text), text)).toEqual([]);
      if (code === 0) expect(run.stdout).toMatch(/::warning title=stateguard::/);
    },
    90_000,
  );

  it.each([
    [{}, 'give target'],
    [{ target: 'http://x/mcp', config: '.mcp.json' }, 'either target or config'],
    [{ target: 'http://x/mcp', 'fail-on': 'sometimes' }, "fail-on: 'sometimes'"],
    [{ target: 'http://x/mcp', args: '--format text' }, 'args: --format is set by the action'],
    [{ target: 'http://x/mcp', 'sarif-location': '../elsewhere.ts' }, 'not inside the repository'],
  ])(
    'refuses bad inputs %j with exit 2 and an error annotation',
    async (inputs, message) => {
      const run = await runStep({ ...inputs, 'identity-a': SECRET_A });
      expect(run.code).toBe(2);
      expect(run.stdout).toContain('::error title=stateguard::');
      expect(run.stdout).toContain(message);
      expectNoSecret(run);
    },
    30_000,
  );

  it("keeps the job's environment from a stdio target: a get_env server's answer holds no secret", async () => {
    const secret = 'ghs_jobToken0f3a9c51d2e7';
    const server = fileURLToPath(new URL('../servers/env-echo.ts', import.meta.url));
    const run = await runStep(
      { target: `stdio: ${nodeCommand(server).join(' ')}`, 'fail-on': 'never' },
      undefined,
      { DEPLOY_TOKEN: secret },
    );
    expect(run.code, run.stderr).toBe(0);
    const report = readFileSync(run.outputs['report-file'] ?? '', 'utf8');
    // The server was called and its environment is in the evidence: the minimal one only.
    expect(report).toContain('get_env');
    expect(report).toContain('PATH');
    expect(report).not.toContain('DEPLOY_TOKEN');
    for (const file of ['report-file', 'sarif-file', 'markdown-file'])
      expect(readFileSync(run.outputs[file] ?? '', 'utf8')).not.toContain(secret);
    expect(`${run.stdout}${run.stderr}${run.summary}`).not.toContain(secret);
  }, 90_000);

  it('fails with exit 2 and no SARIF output when the scanner refuses its arguments', async () => {
    const run = await runStep({ target: flawed.url, args: '--timeout forever' });
    expect(run.code).toBe(2);
    expect(run.outputs).toEqual({ 'exit-code': '2' });
    expect(run.stderr).toContain('--timeout');
  }, 30_000);
});
