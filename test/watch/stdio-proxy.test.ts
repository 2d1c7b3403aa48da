/**
 * `stateguard watch --stdio` end to end: the official SDK client starts the proxy (as a client's
 * configuration would), the proxy starts a fixture twin, and a tee on each side of the proxy keeps
 * a copy of every byte, so the test can show the proxy changed none. The flawed twin shows every
 * server judgement, the fixed one none; the client's edit of a state shows on both; and `check` on
 * the capture gives the findings the live run reported.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterAll, describe, expect, it } from 'vitest';
import { PRINCIPAL_META_KEY } from '../../src/sdk/principal.js';
import { attempt } from '../helpers/mcp-client.js';
import { REPO_ROOT } from '../helpers/spawn-stdio.js';
import { runScenario, SERVER_FINDINGS } from './scenario.js';
import { CLI_MAIN } from '../helpers/cli.js';

const TEE = fileURLToPath(new URL('./tee.mjs', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'sg-watch-stdio-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const sha = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

async function waitFor(file: string, ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (!existsSync(file) || readFileSync(file, 'utf8') === '') {
    if (Date.now() > until) throw new Error(`${file} did not appear in ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

interface Confirmed {
  id: string;
  lines: number[];
}
const confirmed = (reportFile: string): Confirmed[] =>
  (
    JSON.parse(readFileSync(reportFile, 'utf8')) as {
      probes: { id: string; verdict: string; lines?: number[] }[];
    }
  ).probes
    .filter((p) => p.verdict === 'confirmed')
    .map((p) => ({ id: p.id, lines: p.lines ?? [] }));

async function watchRun(mode: 'flawed' | 'fixed') {
  const f = (name: string) => join(dir, `${mode}-${name}`);
  const fixture = [process.execPath, CLI_MAIN, 'fixture'];
  const inner = [process.execPath, TEE, f('inner-in'), f('inner-out'), '--', ...fixture];
  const server = `${inner.join(' ')} --transport stdio --mode ${mode} --state-ttl 1`;
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [
      ...[TEE, f('outer-in'), f('outer-out'), '--'],
      ...[process.execPath, CLI_MAIN, 'watch', '--stdio', server],
      ...['--capture', f('capture.jsonl'), '--format', 'json', '--output', f('report.json')],
      '--max-age',
      '1s',
    ],
    env: getDefaultEnvironment(),
    cwd: REPO_ROOT,
    stderr: 'pipe',
  });
  const client = new Client(
    { name: 'stateguard-test', version: '0.0.0' },
    {
      versionNegotiation: { mode: { pin: '2026-07-28' } },
      inputRequired: { autoFulfill: false },
      capabilities: { elicitation: { form: {} } },
    },
  );
  await client.connect(transport);
  await runScenario((who, params) =>
    attempt(client, 'tools/call', { ...params, _meta: { [PRINCIPAL_META_KEY]: who } }),
  );
  await client.close();
  await waitFor(f('report.json'), 20_000);
  return { f, found: confirmed(f('report.json')) };
}

describe('watch --stdio with the SDK client and the fixture twins', { timeout: 90_000 }, () => {
  for (const mode of ['flawed', 'fixed'] as const) {
    it(`${mode}: relays every byte unchanged, and judges the traffic`, async () => {
      const { f, found } = await watchRun(mode);
      await waitFor(f('outer-out'), 5000);
      expect(readFileSync(f('outer-in')).length).toBeGreaterThan(1000);
      expect(sha(f('inner-in'))).toBe(sha(f('outer-in')));
      expect(sha(f('inner-out'))).toBe(sha(f('outer-out')));

      const ids = new Set(found.map((x) => x.id));
      for (const id of SERVER_FINDINGS) expect(ids.has(id), id).toBe(mode === 'flawed');
      // The client edited a state before sending it back: caught, whatever the server.
      expect(ids.has('client/state-altered')).toBe(true);
      // Nothing the scenario did not do.
      expect(ids.has('client/state-invented')).toBe(false);
      expect(ids.has('client/state-parallel')).toBe(false);

      // The capture holds no principal and no state in the clear.
      const capture = readFileSync(f('capture.jsonl'), 'utf8');
      expect(capture).not.toMatch(/"alice"|"bob"/);

      // `check` on the capture: the same findings, the same lines.
      const check = spawnSync(
        process.execPath,
        [
          ...[CLI_MAIN, 'check', f('capture.jsonl')],
          ...['--format', 'json', '--output', f('check.json'), '--max-age', '1s'],
        ],
        { cwd: REPO_ROOT, encoding: 'utf8', timeout: 30_000 },
      );
      expect(check.status).toBe(1);
      expect(confirmed(f('check.json'))).toEqual(found);
    });
  }
});
