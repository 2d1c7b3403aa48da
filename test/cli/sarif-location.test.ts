/**
 * `--sarif-location` through the CLI: results point at the file and line it names, relative to the
 * repository root (`GITHUB_WORKSPACE`, else the working directory); a file outside the root is a
 * usage error, and the flag with another format is a warning.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI_MAIN, runCli } from '../helpers/cli.js';
import { REPO_ROOT } from '../helpers/spawn-stdio.js';
import { githubProblems } from '../report/sarif-github.js';

const dir = mkdtempSync(join(tmpdir(), 'stateguard-sarif-location-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const FIXTURE = `${process.execPath} ${CLI_MAIN} fixture --mode flawed --transport stdio`;

describe('stateguard scan --sarif-location', () => {
  it('points every result at the file and line, relative to GITHUB_WORKSPACE', async () => {
    const output = join(dir, 'located.sarif');
    const run = await runCli(
      [
        'scan',
        '--stdio',
        FIXTURE,
        '--probe',
        'state/tamper',
        '--format',
        'sarif',
        '--sarif-location',
        'src/fixture/server.ts:103',
        '--output',
        output,
        '--quiet',
      ],
      { GITHUB_WORKSPACE: join(REPO_ROOT, 'src') },
    );
    expect(run.code, run.stderr).toBe(1);
    const text = readFileSync(output, 'utf8');
    const log = JSON.parse(text);
    expect(githubProblems(log, text)).toEqual([]);
    expect(log.runs[0].results[0].locations[0].physicalLocation).toEqual({
      artifactLocation: { uri: 'fixture/server.ts', uriBaseId: '%SRCROOT%' },
      region: { startLine: 103 },
    });
  });

  it('refuses a file outside the repository root, before scanning (exit 2)', async () => {
    const run = await runCli(
      ['scan', '--stdio', 'x', '--format', 'sarif', '--sarif-location', '/etc/passwd'],
      { GITHUB_WORKSPACE: '' },
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      "--sarif-location '/etc/passwd' is not inside the repository root",
    );
  });

  it('warns that it changes nothing with another format', async () => {
    const run = await runCli([
      'scan',
      '--stdio',
      'stateguard-no-such-command-31337',
      '--sarif-location',
      'a.ts',
      '--quiet',
    ]);
    expect(run.stderr).toContain('--sarif-location applies to --format sarif only');
  });
});
