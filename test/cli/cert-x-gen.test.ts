/**
 * Engine mode end to end: the real CLI, configured by environment variables only, against fixture
 * twins over HTTP and stdio, an unreachable target and bad settings, each answered by one
 * cert-x-gen document and exit 0; then the shipped template file run the way the engine runs it
 * (`python3 <file>` with the CERT_X_GEN_* variables), finding `stateguard` on the PATH.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { quote } from 'shell-quote';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectedFor, type Mode } from '../../src/fixture/flaws.js';
import { startFixtureHttp, type FixtureHttp } from '../../src/fixture/http.js';
import { CLI_MAIN, runCli, runCommand, type CliRun, builtFixtureStdio } from '../helpers/cli.js';
import { parseCertXGen, TEMPLATE_FILE, type CertXGenDocument } from '../helpers/cert-x-gen.js';

const SECRET_A = 'cxg-alice-secret-7d2c9e';
const SECRET_B = 'cxg-bob-secret-41f0aa';
// Two probes keep these scans short; the proof table renders every probe on every mode.
const PROBES = ['--probe', 'handle/cross-principal', '--probe', 'state/tamper'];
const ENGINE = ['scan', '--format', 'cert-x-gen', '--quiet'];

const dir = mkdtempSync(join(tmpdir(), 'stateguard-cxg-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The arguments of a stdio twin after its command, as one CXG_MCP_STDIO_ARGS line. */
function stdioArgs(mode: Mode): { command: string; line: string } {
  const { command, args } = builtFixtureStdio(mode);
  return { command, line: quote(args) };
}

/** Runs the CLI in engine mode with only these variables set besides the usual environment. */
async function engine(
  vars: Record<string, string>,
  args = PROBES,
): Promise<CliRun & { doc: CertXGenDocument }> {
  const run = await runCli([...ENGINE, ...args], { CERT_X_GEN_MODE: 'engine', ...vars });
  return { ...run, doc: parseCertXGen(run.stdout) };
}

/** A port on 127.0.0.1 nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

describe('engine mode through the CLI', () => {
  let flawed: FixtureHttp;
  beforeAll(async () => {
    flawed = await startFixtureHttp({ mode: 'flawed' });
  });
  afterAll(async () => {
    await flawed.close();
  });

  it('confirms the flawed HTTP twin with findings, exit 0, and no identity in the output', async () => {
    const port = new URL(flawed.url).port;
    const run = await engine({
      CERT_X_GEN_TARGET_HOST: '127.0.0.1',
      CERT_X_GEN_TARGET_PORT: port,
      CERT_X_GEN_TARGET_KIND: 'http',
      CXG_MCP_IDENTITY_A: SECRET_A,
      CXG_MCP_IDENTITY_B: SECRET_B,
    });
    expect(run.code).toBe(0);
    expect(run.doc.metadata.status).toBe('confirmed');
    expect(run.doc.findings.map((f) => f.evidence.data.probe).sort()).toEqual([
      'handle/cross-principal',
      'state/tamper',
    ]);
    expect(run.doc.findings[0]?.target).toBe(`http://127.0.0.1:${port}/mcp`);
    // The twin echoes each principal in its answers: they arrive redacted, never as sent.
    for (const secret of [SECRET_A, SECRET_B]) {
      expect(run.stdout).not.toContain(secret);
      expect(run.stderr).not.toContain(secret);
    }
    expect(run.stdout).toContain('<identity-A>');
  });

  it('runs a stdio twin named by CERT_X_GEN_TARGET_KIND=cli with CXG_MCP_STDIO_ARGS', async () => {
    const { command, line } = stdioArgs('fixed');
    const run = await engine({
      CERT_X_GEN_TARGET_HOST: command,
      CERT_X_GEN_TARGET_KIND: 'cli',
      CERT_X_GEN_TARGET_PORT: '80',
      CXG_MCP_STDIO_ARGS: line,
    });
    expect(run.code).toBe(0);
    expect(run.doc).toMatchObject({ findings: [], metadata: { status: 'refuted' } });
    expect(run.doc.metadata.detail).toContain('--mode fixed');
  });

  it('runs a stdio twin named by a cli:// host', async () => {
    const { command, line } = stdioArgs('legacy-unbound');
    const run = await engine({
      CERT_X_GEN_TARGET_HOST: `cli://${command}`,
      CXG_MCP_STDIO_ARGS: line,
    });
    expect(run.code).toBe(0);
    expect(run.doc.metadata.status).toBe('confirmed');
    expect(run.doc.findings.map((f) => f.evidence.data.probe)).toEqual(['handle/cross-principal']);
    expect(run.doc.findings[0]?.cwe_ids).toEqual(['CWE-639']);
  });

  it('says errored, and exits 0, when the target cannot be reached or run', async () => {
    const port = String(await closedPort());
    const down = await engine({
      CERT_X_GEN_TARGET_HOST: '127.0.0.1',
      CERT_X_GEN_TARGET_PORT: port,
    });
    expect(down.code).toBe(0);
    expect(down.doc).toMatchObject({ findings: [], metadata: { status: 'errored' } });
    expect(down.doc.metadata.detail).toContain(`127.0.0.1:${port}`);
    const missing = await engine({
      CERT_X_GEN_TARGET_HOST: `cli://${join(dir, 'no-such-server')}`,
    });
    expect(missing.code).toBe(0);
    expect(missing.doc.metadata.status).toBe('errored');
    expect(missing.doc.metadata.detail).toContain('no-such-server');
  });

  it('answers bad settings with an errored document and exit 0, the reason on stderr too', async () => {
    const run = await engine({
      CERT_X_GEN_TARGET_HOST: '127.0.0.1',
      CERT_X_GEN_TARGET_PORT: 'eighty',
    });
    expect(run.code).toBe(0);
    expect(run.doc).toMatchObject({ findings: [], metadata: { status: 'errored' } });
    expect(run.doc.metadata.detail).toContain('CERT_X_GEN_TARGET_PORT needs a port number');
    expect(run.stderr).toContain('CERT_X_GEN_TARGET_PORT needs a port number');
    // Outside engine mode the same bad usage keeps its exit code 2.
    const plain = await runCli(['scan', '--format', 'cert-x-gen'], {});
    expect(plain.code).toBe(2);
  });
});

const PYTHON = spawnSync('python3', ['--version']).status === 0;
const PYTHON_SKIP = 'python3 is not on the PATH (the engine runs the template with it)';
if (!PYTHON)
  console.warn(`[skipped] the shipped template, run as the engine runs it: ${PYTHON_SKIP}`);

/** Runs the template as the engine does: `python3 <file>`, the variables added to the environment. */
const runTemplate = (vars: Record<string, string>): Promise<CliRun> =>
  runCommand('python3', [TEMPLATE_FILE], vars, 60_000);

describe.skipIf(!PYTHON)('the shipped template, run as the engine runs it (needs python3)', () => {
  // `stateguard` on the PATH: the CLI from source, as an installed package would provide it.
  const bin = join(dir, 'bin');
  beforeAll(() => {
    const shim = join(bin, 'stateguard');
    mkdirSync(bin, { recursive: true });
    writeFileSync(shim, `#!/bin/sh\nexec ${quote([process.execPath, CLI_MAIN])} "$@"\n`);
    chmodSync(shim, 0o755);
  });

  it('prints the confirmed document of the flawed HTTP twin, every probe, exit 0', async () => {
    const twin = await startFixtureHttp({ mode: 'flawed' });
    try {
      const run = await runTemplate({
        PATH: `${bin}:${process.env.PATH ?? ''}`,
        CERT_X_GEN_MODE: 'engine',
        CERT_X_GEN_TARGET_HOST: '127.0.0.1',
        CERT_X_GEN_TARGET_PORT: new URL(twin.url).port,
        CERT_X_GEN_TARGET_KIND: 'http',
      });
      expect(run.code).toBe(0);
      const doc = parseCertXGen(run.stdout);
      expect(doc.metadata.status).toBe('confirmed');
      const confirmed = Object.entries(expectedFor('flawed', 'http'))
        .filter(([, v]) => v === 'confirmed')
        .map(([id]) => id);
      expect(doc.findings.map((f) => f.evidence.data.probe).sort()).toEqual(confirmed.sort());
    } finally {
      await twin.close();
    }
  });

  it('prints an errored document, exit 0, when stateguard is not to be found', async () => {
    const run = await runTemplate({ STATEGUARD_BIN: join(dir, 'nowhere', 'stateguard') });
    expect(run.code).toBe(0);
    const doc = parseCertXGen(run.stdout);
    expect(doc.metadata).toMatchObject({
      id: 'stateguard-mcp-state-integrity',
      status: 'errored',
      cwe: ['CWE-639', 'CWE-565'],
    });
    expect(doc.metadata.detail).toContain('STATEGUARD_BIN');
  });
});
