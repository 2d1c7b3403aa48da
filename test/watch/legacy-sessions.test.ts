/**
 * Session ids judged from traffic against a real legacy-session server: the official SDK v1 server
 * (`StreamableHTTPServerTransport` with a `sessionIdGenerator`) behind `stateguard watch --http`,
 * and three official SDK v1 clients, each opening its own session through the proxy. A generator
 * that counts (`mcp-session-000000000001`, …: 24 characters, too long to be "short") is confirmed
 * as `server/guessable-ids` at the answers that handed the ids out; the SDK's default random UUIDs
 * are not. `check` on each capture gives the live findings.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, describe, expect, it } from 'vitest';
import { parseCapture } from '../../src/watch/capture.js';
import { sourceEntry } from '../../harness/node-entry.js';
import { CLI_MAIN } from '../helpers/cli.js';
import { REPO_ROOT } from '../helpers/spawn-stdio.js';

const SERVER = fileURLToPath(new URL('./legacy-session-server.ts', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'sg-watch-legacy-'));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

function start(args: string[], marker: RegExp): Promise<{ child: ChildProcess; match: string }> {
  const child = spawn(process.execPath, args, { cwd: REPO_ROOT });
  children.push(child);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${marker} in 20 s`)), 20_000);
    let seen = '';
    const look = (chunk: Buffer) => {
      seen += chunk.toString('utf8');
      const m = marker.exec(seen);
      if (m) {
        clearTimeout(timer);
        resolve({ child, match: m[1] as string });
      }
    };
    child.stdout?.on('data', look);
    child.stderr?.on('data', look);
  });
}

interface Probe {
  id: string;
  verdict: string;
  lines?: number[];
}
const probesIn = (file: string): Probe[] =>
  (JSON.parse(readFileSync(file, 'utf8')) as { probes: Probe[] }).probes;

async function run(generator: 'sequential' | 'random') {
  const base = join(dir, generator);
  const server = await start([...sourceEntry(SERVER), generator], /\[legacy\] listening (\S+)/);
  const upstream = new URL(server.match);
  const proxy = await start(
    [
      ...[CLI_MAIN, 'watch', '--http', upstream.href, '--listen', '127.0.0.1:0'],
      ...['--capture', `${base}.jsonl`, '--format', 'json', '--output', `${base}.json`],
    ],
    /\[watch\] listening (\S+)/,
  );
  const sessionIds: string[] = [];
  for (let i = 0; i < 3; i++) {
    const client = new Client({ name: 'stateguard-test', version: '0.0.0' });
    const transport = new StreamableHTTPClientTransport(
      new URL(`${proxy.match}${upstream.pathname}`),
    );
    await client.connect(transport);
    sessionIds.push(transport.sessionId ?? '');
    const echoed = await client.callTool({ name: 'echo', arguments: { text: `hi ${i}` } });
    expect(echoed.content).toEqual([{ type: 'text', text: `hi ${i}` }]);
    await client.close();
  }
  const exited = new Promise((r) => proxy.child.once('exit', r));
  proxy.child.kill('SIGTERM');
  await exited;
  server.child.kill('SIGTERM');
  return { base, sessionIds };
}

describe('watch: session ids of an SDK v1 legacy-session server', { timeout: 90_000 }, () => {
  it('counting session ids are confirmed at the answers that handed them out; UUIDs are not', async () => {
    const seq = await run('sequential');
    expect(seq.sessionIds).toEqual([1, 2, 3].map((n) => `mcp-session-00000000000${n}`));
    const guessable = probesIn(`${seq.base}.json`).filter((p) => p.id === 'server/guessable-ids');
    expect(guessable.map((p) => p.verdict)).toEqual(['confirmed']);
    // The lines are three answers, each handing out a different session id, none in the clear.
    const capture = parseCapture(readFileSync(`${seq.base}.jsonl`, 'utf8'));
    if ('problem' in capture) throw new Error(capture.problem);
    const lines = (guessable[0]?.lines ?? []).map((n) => capture.lines.find((l) => l.n === n));
    expect(lines.map((l) => l?.dir)).toEqual(['s2c', 's2c', 's2c']);
    expect(new Set(lines.map((l) => l?.http?.session)).size).toBe(3);
    expect(readFileSync(`${seq.base}.jsonl`, 'utf8')).not.toContain('mcp-session-0');

    const random = await run('random');
    expect(new Set(random.sessionIds).size).toBe(3);
    const none = probesIn(`${random.base}.json`).filter((p) => p.id === 'server/guessable-ids');
    expect(none.map((p) => p.verdict)).toEqual(['refuted']);

    for (const { base } of [seq, random]) {
      spawnSync(
        process.execPath,
        [
          ...[CLI_MAIN, 'check', `${base}.jsonl`],
          ...['--format', 'json', '--output', `${base}-check.json`],
        ],
        { cwd: REPO_ROOT, encoding: 'utf8', timeout: 30_000 },
      );
      const confirmed = (f: string) => probesIn(f).filter((p) => p.verdict === 'confirmed');
      expect(confirmed(`${base}-check.json`)).toEqual(confirmed(`${base}.json`));
    }
  });
});
