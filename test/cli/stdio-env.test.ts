/**
 * A stdio target starts in the minimal environment plus what `--env` and `--env-file` name, never
 * the scanner's whole environment: a server whose read-only `get_env` tool answers with its
 * environment (test/servers/env-echo.ts) must not carry a CI job's secret into any report format.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseScanArgs } from '../../src/cli/scan-args.js';
import { REPORT_FORMATS } from '../../src/report/index.js';
import { REPO_ROOT } from '../helpers/spawn-stdio.js';
import { builtPath, runCli } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'stateguard-stdio-env-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SERVER = `${process.execPath} ${builtPath('test/servers/env-echo.ts')}`;
const CI_SECRET = 'ghp_ciJobSecret7d41c09be2';
const PASSED = 'passed-api-token-5a90e13f';
const FROM_FILE = 'file-api-token-0c7b2d94';
const SCANNER_ENV = { SG_CI_SECRET: CI_SECRET, SG_PASSED_TOKEN: PASSED };
const FORMATS = REPORT_FORMATS.filter((f) => f !== 'cert-x-gen');

const scan = async (format: string, extra: readonly string[] = []): Promise<string> => {
  const output = join(dir, `report-${format}-${extra.length}.out`);
  const run = await runCli(
    [
      'scan',
      '--stdio',
      SERVER,
      '--format',
      format,
      '--output',
      output,
      '--quiet',
      '--evidence',
      'full',
      ...extra,
    ],
    SCANNER_ENV,
    60_000,
  );
  expect(run.stderr).not.toContain(CI_SECRET);
  return readFileSync(output, 'utf8');
};

describe('the environment of a --stdio target', () => {
  it.each(FORMATS)('no value of the scanner environment reaches a %s report', async (format) => {
    const report = await scan(format);
    expect(report).not.toContain(CI_SECRET);
    expect(report).not.toContain(PASSED);
  });

  it('the server saw its environment: the JSON report quotes get_env, minimal variables only', async () => {
    const report = await scan('json');
    expect(report).toContain('get_env');
    expect(report).toContain('PATH');
    expect(report).not.toContain('SG_CI_SECRET');
  });

  it('--env NAME passes exactly that variable, its value redacted; --env-file lines too', async () => {
    const file = join(dir, 'server.env');
    writeFileSync(file, `# for the server\nFILE_TOKEN=${FROM_FILE}\n`);
    const report = await scan('json', ['--env', 'SG_PASSED_TOKEN', '--env-file', file]);
    expect(report).toContain('SG_PASSED_TOKEN');
    expect(report).toContain('<env SG_PASSED_TOKEN>');
    expect(report).toContain('<env FILE_TOKEN>');
    expect(report).not.toContain(PASSED);
    expect(report).not.toContain(FROM_FILE);
    expect(report).not.toContain('SG_CI_SECRET');
    expect(report).not.toContain(CI_SECRET);
  });
});

describe('--stdio and --peer-stdio get the same minimal environment', () => {
  const place = { cwd: REPO_ROOT, home: dir };
  const env = { PATH: '/usr/bin', HOME: '/home/ci', LANG: 'C.UTF-8', ...SCANNER_ENV };

  it('holds neither the secret nor an unnamed variable, and the named one where --env says', () => {
    const args = parseScanArgs(
      ['--stdio', 'node a.js', '--peer-stdio', 'node b.js', '--env', 'SG_PASSED_TOKEN'],
      env,
      place,
    );
    if (args === 'help' || args.target === undefined) throw new Error('no target');
    const expected = {
      PATH: '/usr/bin',
      HOME: '/home/ci',
      LANG: 'C.UTF-8',
      SG_PASSED_TOKEN: PASSED,
    };
    expect(args.target).toMatchObject({ kind: 'stdio', env: expected });
    expect(args.peer).toMatchObject({ kind: 'stdio', env: expected });
    if (args.target.kind !== 'stdio' || args.peer?.kind !== 'stdio') throw new Error('not stdio');
    expect(Object.keys(args.target.env ?? {}).sort()).toEqual(Object.keys(expected).sort());
    expect(args.secrets).toEqual([{ placeholder: '<env SG_PASSED_TOKEN>', value: PASSED }]);
  });

  it.each([
    [['--http', 'http://127.0.0.1:1/mcp', '--env', 'X'], '--env applies to --stdio targets only'],
    [['--stdio', 'node a.js', '--env', 'not a name'], '--env takes an environment variable name'],
    [
      ['--stdio', 'node a.js', '--env-file', '/nonexistent/x.env'],
      "cannot read --env-file '/nonexistent/x.env': ENOENT",
    ],
  ])('%j is a usage error', (argv, message) => {
    expect(() => parseScanArgs(argv, env, place)).toThrow(message);
  });
});
