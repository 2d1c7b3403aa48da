/**
 * The Action run from its own checkout (issue 35): the scan step's `run:` line, read from
 * action.yml, executed by bash as a runner would (`STATEGUARD_ACTION_PATH` is the checkout, the
 * entry is the build in `dist/`: run `npm run build` first), in a workspace with `GITHUB_*`,
 * `RUNNER_TEMP` and `INPUT_*` set. With `start`, the step starts an HTTP server (the front-door
 * example, from source through tsx), waits for its port, scans it, and stops it.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { TSX_LOADER } from '../helpers/cli.js';
import { REPO_ROOT } from '../helpers/spawn-stdio.js';

const ACTION = readFileSync(join(REPO_ROOT, 'action.yml'), 'utf8');
const ENTRY = join(REPO_ROOT, 'dist/action/main.js');
/** The front-door example, from source (the harness is not in `dist/`). */
const EXAMPLE = join(REPO_ROOT, 'harness/examples/front-door.ts');

/** The `run:` line of the step with `id: scan`. */
function scanStepRun(): string {
  const step = ACTION.slice(ACTION.indexOf('      id: scan\n'));
  const run = /^ {6}run: (.+)$/m.exec(step)?.[1];
  if (run === undefined) throw new Error('action.yml: the scan step has no run line');
  return run;
}

const root = mkdtempSync(join(tmpdir(), 'stateguard-checkout-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A port nothing listens on right now. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.setTimeout(1000, () => (socket.destroy(), resolve(false)));
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

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
/** The scan step as a runner runs it: bash, the run line, the step's env. */
async function runStep(inputs: Record<string, string>, job: Record<string, string> = {}) {
  const base = join(root, `run-${++runs}`);
  const workspace = join(base, 'workspace');
  const temp = join(base, 'runner-temp');
  mkdirSync(workspace, { recursive: true });
  mkdirSync(temp, { recursive: true });
  const outputFile = join(base, 'output');
  const summaryFile = join(base, 'summary');
  writeFileSync(outputFile, '');
  writeFileSync(summaryFile, '');
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    NO_COLOR: '1',
    CI: 'true',
    GITHUB_ACTIONS: 'true',
    GITHUB_WORKSPACE: workspace,
    GITHUB_ACTION_PATH: REPO_ROOT,
    STATEGUARD_ACTION_PATH: REPO_ROOT,
    RUNNER_TEMP: temp,
    GITHUB_OUTPUT: outputFile,
    GITHUB_STEP_SUMMARY: summaryFile,
    ...job,
    ...Object.fromEntries(
      Object.entries(inputs).map(([k, v]) => [`INPUT_${k.toUpperCase().replace(/-/g, '_')}`, v]),
    ),
  };
  const started = Date.now();
  return new Promise<{
    code: number | null;
    stdout: string;
    stderr: string;
    outputs: Record<string, string>;
    summary: string;
    ms: number;
  }>((resolve) => {
    const child = spawn('bash', ['-c', scanStepRun()], {
      cwd: workspace,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const killer = setTimeout(() => child.kill('SIGKILL'), 80_000);
    child.on('close', (code) => {
      clearTimeout(killer);
      resolve({
        code,
        stdout,
        stderr,
        outputs: parseOutputs(readFileSync(outputFile, 'utf8')),
        summary: readFileSync(summaryFile, 'utf8'),
        ms: Date.now() - started,
      });
    });
  });
}

describe('the Action from its checkout', () => {
  it('has been built (npm run build) and runs its build, not an installed package', () => {
    expect(existsSync(ENTRY), 'run `npm run build` first').toBe(true);
    expect(scanStepRun()).toBe('node "$STATEGUARD_ACTION_PATH/dist/action/main.js"');
  });

  it('starts an HTTP server from a command, waits for its port, scans it clean, and stops it', async () => {
    const port = await freePort();
    const tokens = [
      `tok-a-${randomBytes(8).toString('hex')}`,
      `tok-b-${randomBytes(8).toString('hex')}`,
    ];
    const run = await runStep(
      {
        target: `http://127.0.0.1:${port}/mcp`,
        start: `node --import "${TSX_LOADER}" "${EXAMPLE}"`,
        'wait-timeout': '30s',
        'identity-a': tokens[0] ?? '',
        'identity-b': tokens[1] ?? '',
      },
      {
        PORT: String(port),
        STATEGUARD_KEYS: randomBytes(32).toString('base64url'),
        DEMO_TOKENS: `alice=${tokens[0]},bob=${tokens[1]}`,
      },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(
      `stateguard: started the server (start), waiting for 127.0.0.1:${port}`,
    );
    expect(run.stderr).toContain(`[server] [notes] ready http://127.0.0.1:${port}/mcp`);
    expect(run.stderr).toContain('stateguard: stopped the server (start)');
    expect(run.outputs).toMatchObject({ 'exit-code': '0', confirmed: '0', errored: '0' });
    expect(Number(run.outputs['refuted'])).toBeGreaterThanOrEqual(7);
    expect(run.summary).toMatch(/^## stateguard: http:&#47;&#47;127\.0\.0\.1/);
    expect(run.summary).toContain('`state/tamper`');
    // Stopped: nothing listens on the port any more.
    expect(await accepts(port)).toBe(false);
    // The tokens only in the masking commands.
    const shown = run.stdout.split('\n').filter((l) => !l.startsWith('::add-mask::'));
    for (const token of tokens) {
      expect(run.stdout).toContain(`::add-mask::${token}`);
      expect(`${shown.join('\n')}${run.stderr}${run.summary}`).not.toContain(token);
    }
  }, 90_000);

  it('fails (exit 2) within wait-timeout when nothing listens, and ends the command', async () => {
    const port = await freePort();
    const marker = join(root, `alive-${randomBytes(4).toString('hex')}`);
    const run = await runStep({
      target: `http://127.0.0.1:${port}/mcp`,
      // Writes a file after 6 s unless it was stopped first.
      start: `sleep 6 && touch "${marker}"`,
      'wait-timeout': '2s',
    });
    expect(run.code).toBe(2);
    expect(run.stdout).toContain(
      `::error title=stateguard::start: nothing accepted a connection on 127.0.0.1:${port} within 2s (wait-for, wait-timeout)`,
    );
    expect(run.outputs).toEqual({});
    expect(run.ms).toBeLessThan(15_000);
    await new Promise((resolve) => setTimeout(resolve, 6_000));
    expect(existsSync(marker)).toBe(false);
  }, 40_000);

  it('fails (exit 2) at once when the command exits before its port opens', async () => {
    const port = await freePort();
    const run = await runStep({
      target: `http://127.0.0.1:${port}/mcp`,
      start: 'echo "cannot bind" >&2; exit 3',
      'wait-timeout': '30s',
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('[server] cannot bind');
    expect(run.stdout).toContain(
      `::error title=stateguard::start: the server exited (3) before 127.0.0.1:${port} accepted a connection`,
    );
    expect(run.ms).toBeLessThan(15_000);
  }, 40_000);
});
