/**
 * Guessable ids from live traffic: the task fixture's `sequential` store hands out `task-1`,
 * `task-2`, …; its `fixed` store hands out the library's bound, unguessable ids. A raw JSON-RPC
 * client (SDK 2.4's client refuses a `resultType: "task"` answer) starts three exports through
 * `stateguard watch --stdio`; the report confirms `server/guessable-ids` on the first only.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { quote } from 'shell-quote';
import { afterAll, describe, expect, it } from 'vitest';
import { taskStdioCommand } from '../../harness/twins/tasks/index.js';
import { envelope } from '../fixture/driver.js';
import { REPO_ROOT } from '../helpers/spawn-stdio.js';
import { CLI_MAIN } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'sg-watch-tasks-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function run(variant: 'sequential' | 'fixed') {
  const { command, args } = taskStdioCommand(variant);
  const report = join(dir, `${variant}.json`);
  const child = spawn(
    process.execPath,
    [
      ...[CLI_MAIN, 'watch', '--stdio', quote([command, ...args])],
      ...['--capture', join(dir, `${variant}.jsonl`), '--format', 'json', '--output', report],
    ],
    { cwd: REPO_ROOT, stdio: ['pipe', 'pipe', 'pipe'] },
  );
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
  const meta = { ...envelope({ tasks: {} }), 'io.modelcontextprotocol/principal': 'alice' };
  for (let id = 1; id <= 3; id++)
    child.stdin.write(
      `${JSON.stringify({
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        params: { name: 'start_export', arguments: { title: `t${id}` }, _meta: meta },
      })}\n`,
    );
  const until = Date.now() + 20_000;
  while ((out.match(/\n/g) ?? []).length < 3) {
    if (Date.now() > until) throw new Error(`three answers did not come: ${out}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  child.stdin.end();
  await new Promise((r) => child.once('exit', r));
  while (!existsSync(report)) {
    if (Date.now() > until) throw new Error('no report');
    await new Promise((r) => setTimeout(r, 50));
  }
  const probes = (
    JSON.parse(readFileSync(report, 'utf8')) as {
      probes: { id: string; verdict: string; reason: string }[];
    }
  ).probes;
  return { out, guessable: probes.filter((p) => p.id === 'server/guessable-ids') };
}

describe('watch: guessable task ids from live traffic', { timeout: 60_000 }, () => {
  it('sequential task ids are confirmed; the fixed store is refuted', async () => {
    const seq = await run('sequential');
    expect(seq.out).toContain('task-3');
    expect(seq.guessable.map((p) => p.verdict)).toEqual(['confirmed', 'confirmed']);
    expect(seq.guessable.map((p) => p.reason).join(' ')).toMatch(/count up/);
    const fixed = await run('fixed');
    expect(fixed.guessable.map((p) => p.verdict)).toEqual(['refuted']);
  });
});
