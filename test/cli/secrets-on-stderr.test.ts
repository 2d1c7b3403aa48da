/**
 * Secrets are redacted on every stream, not only in the reports: stderr carries warnings, problem
 * texts and progress lines, and a CI log keeps them. Each secret here is one the scanner knows as
 * one (an environment value a config placeholder used, an identity, a `--header` value); none may
 * appear on stderr or stdout, and each must be there as its placeholder where a line quotes it.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'stateguard-secrets-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SECRET = 'env-secret-4f1c9a2e77';
const OWN_A = 'own-identity-a-83d1b0';
const HEADER = 'header-value-c5e2a91f';

const expectNowhere = (text: string, ...secrets: string[]): void => {
  for (const s of secrets) expect(text).not.toContain(s);
};

describe('no secret on stderr', () => {
  it('a config placeholder secret in an envFile path, a stdio argument and a URL', async () => {
    const file = join(dir, 'mcp.json');
    writeFileSync(
      file,
      JSON.stringify({
        mcpServers: {
          'env-file': { command: 'node', envFile: '/nonexistent/${env:SG_TEST_SECRET}.env' },
          args: { command: '/nonexistent/server', args: ['--token', '${env:SG_TEST_SECRET}'] },
          url: { url: 'http://127.0.0.1:1/${env:SG_TEST_SECRET}/mcp' },
          own: {
            command: '/nonexistent/other',
            args: ['--as', '${env:STATEGUARD_IDENTITY_A__OWN}'],
          },
        },
      }),
    );
    const run = await runCli(
      [
        'scan',
        '--config',
        file,
        '--probe',
        'state/tamper',
        '--deadline',
        '10s',
        '--format',
        'json',
      ],
      { SG_TEST_SECRET: SECRET, STATEGUARD_IDENTITY_A__OWN: OWN_A },
      60_000,
    );
    expect(run.code, run.stderr).toBe(4);
    expectNowhere(run.stderr, SECRET, OWN_A);
    expectNowhere(run.stdout, SECRET, OWN_A);
    // The lines that quote them are there, with the placeholders.
    expect(run.stderr).toContain(
      "its envFile '/nonexistent/<env SG_TEST_SECRET>.env' cannot be read",
    );
    expect(run.stderr).toMatch(/\[args\] stateguard: scanning stdio:.*<env SG_TEST_SECRET>/);
    expect(run.stderr).toMatch(/\[own\] stateguard: scanning stdio:.*<identity-A>/);
  }, 90_000);

  it('an identity and a --header value of a single target', async () => {
    const run = await runCli(
      [
        'scan',
        '--http',
        `http://127.0.0.1:1/${OWN_A}/mcp`,
        '--header',
        `X-Api-Key: ${HEADER}`,
        '--probe',
        'state/tamper',
        '--deadline',
        '5s',
      ],
      { STATEGUARD_IDENTITY_A: OWN_A },
      60_000,
    );
    expect(run.code, run.stderr).toBe(4);
    expectNowhere(run.stderr, OWN_A, HEADER);
    expectNowhere(run.stdout, OWN_A, HEADER);
    expect(run.stderr).toContain('scanning http://127.0.0.1:1/<identity-A>/mcp');
  }, 90_000);
});
