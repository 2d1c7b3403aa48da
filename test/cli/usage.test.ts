/**
 * What a newcomer types, and what the CLI says back: a usage error is one line that says what to
 * do (exit 2, before any scan); what is legal but probably not meant is a warning before scanning.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'stateguard-usage-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const notPem = join(dir, 'not.pem');
writeFileSync(notPem, 'hello');
// Nothing listens on port 1: an HTTP target that ends at once.
const CLOSED = 'http://127.0.0.1:1/mcp';
const MISSING = 'stateguard-no-such-command-31337';

describe('stateguard scan usage errors', () => {
  it.each([
    [
      ['--stdio', 'x', '--deadline', '30'],
      "--deadline needs a unit, e.g. 500ms, 30s, 2m or 1h (decimals such as 2.5s work); got '30'",
    ],
    [['--stdio', 'x', '--timeout', '5 parsecs'], '--timeout needs a duration, e.g. 500ms'],
    [
      ['--stdio', 'x', '--deadline', `${2 ** 31}ms`],
      `--deadline '${2 ** 31}ms' is too long: at most 2147483647ms (about 24 days)`,
    ],
    [['--stdio', 'x', '--startup-timeout', '25d'], '--startup-timeout needs a duration'],
    [['--stdio', 'x', '--deadline', '600h'], "--deadline '600h' is too long"],
    [
      ['--http', 'localhost:3000'],
      "--http needs an http(s) URL, got 'localhost:3000'; did you mean http://localhost:3000/mcp?",
    ],
    [['--http', '127.0.0.1:8080/api/mcp'], 'did you mean http://127.0.0.1:8080/api/mcp?'],
    [
      ['--stdio', 'FOO=1 node server.js'],
      "--stdio runs no shell, so environment assignments ('FOO=…') are not supported",
    ],
    [['--stdio', 'x', '--output', join(dir, 'missing', 'report.json')], "the directory '"],
    [['--stdio', 'x', '--output', dir], 'is a directory'],
    [['--stdio', 'x', '--write-baseline', join(dir, 'nope', 'b.txt')], '--write-baseline'],
    [['--stdio', 'x', '--skip-probe', 'state/nope'], "unknown probe 'state/nope' in --skip-probe"],
    [
      ['--stdio', 'x', '--probe', 'state/tamper', '--skip-probe', 'state/tamper'],
      '--skip-probe leaves no probe to run',
    ],
    [['--http', 'https://127.0.0.1:1/mcp', '--ca', join(dir, 'none.pem')], "cannot read --ca '"],
    [['--http', 'https://127.0.0.1:1/mcp', '--ca', notPem], 'holds no PEM certificate'],
    [['--http', CLOSED, '--insecure'], '--insecure applies to https:// URLs only'],
    [['--stdio', 'x', '--ca', notPem], '--ca applies to --http https:// targets only'],
    [
      ['--http', 'https://127.0.0.1:1/mcp', '--ca', notPem, '--insecure'],
      'either --ca or --insecure',
    ],
    [['--http', CLOSED, '--header', 'no colon'], "--header takes 'Name: value'"],
    [
      ['--http', CLOSED, '--header', 'Authorization: Basic eA=='],
      '--header cannot set Authorization: it carries the identities',
    ],
    [['--http', CLOSED, '--header', 'Mcp-Method: x'], 'the scanner sends it itself'],
    [['--stdio', 'x', '--header', 'X-Tenant: acme'], '--header applies to --http targets only'],
  ])('rejects %j in one line, exit 2, before any scan', async (args, message) => {
    const run = await runCli(['scan', ...args]);
    expect(run.code).toBe(2);
    const lines = run.stderr.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toContain(message);
    expect(lines[1]).toBe("Try 'stateguard scan --help'.");
    expect(run.stdout).toBe('');
  });

  it('accepts durations with units, decimals included', async () => {
    const run = await runCli([
      'scan',
      '--stdio',
      MISSING,
      '--timeout',
      '2.5s',
      '--deadline',
      '0.5m',
      '--quiet',
    ]);
    expect(run.code).toBe(4);
  });

  it('prints usage on stderr and exits 2 when given no arguments at all', async () => {
    const run = await runCli([]);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('Usage:');
    expect(run.stderr).toContain('stateguard scan');
  });
});

describe('stateguard scan warnings, before scanning', () => {
  const warned = (stderr: string): string[] =>
    stderr.split('\n').filter((l) => l.startsWith('stateguard scan: warning: '));

  it.each([
    [
      ['--http', CLOSED, '--principal-meta-key', 'x/y'],
      {},
      '--principal-meta-key applies to --stdio targets only',
    ],
    [['--stdio', MISSING, '--all'], {}, '--all applies to --format sarif only'],
    [
      ['--stdio', MISSING],
      { STATEGUARD_IDENTITY_A: 'alice-secret-1234' },
      'only identity A is set (STATEGUARD_IDENTITY_A); B is a random one',
    ],
    [
      ['--stdio', MISSING],
      { STATEGUARD_IDENTITY_B: 'bob-secret-1234' },
      'set STATEGUARD_IDENTITY_A too',
    ],
    [
      ['--stdio', MISSING, '--identity-a', 'a', '--identity-b', 'bob-secret'],
      {},
      'identity A is 1 character long: too short',
    ],
    [
      ['--http', 'https://127.0.0.1:1/mcp', '--insecure'],
      {},
      "WARNING: --insecure: the server's TLS certificate is NOT verified",
    ],
  ])('warns for %j %j', async (args, env, message) => {
    const run = await runCli(['scan', ...args, '--quiet'], env);
    expect(run.code).toBe(4);
    expect(warned(run.stderr).join('\n')).toContain(message);
  });

  it('stays quiet for a plain scan with both identities', async () => {
    const run = await runCli(
      ['scan', '--stdio', MISSING, '--all', '--format', 'sarif', '--quiet'],
      {
        STATEGUARD_IDENTITY_A: 'alice-secret-1234',
        STATEGUARD_IDENTITY_B: 'bob-secret-5678',
      },
    );
    expect(warned(run.stderr)).toEqual([]);
  });
});
