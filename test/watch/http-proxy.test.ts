/**
 * `stateguard watch --http` end to end: the official SDK client (one per principal, each with its
 * bearer token) talks to the proxy started from the command line; the proxy forwards to a tap in
 * front of the HTTP fixture twin. The client's fetch and the tap each keep every body byte, so the
 * test shows the proxy changed none. Then as for stdio: findings on the flawed twin only, the
 * client's edit caught on both, and `check` on the capture gives the live findings.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, describe, expect, it } from 'vitest';
import { attempt } from '../helpers/mcp-client.js';
import { startHttp } from '../helpers/http.js';
import { REPO_ROOT } from '../helpers/spawn-stdio.js';
import { runScenario, SERVER_FINDINGS } from './scenario.js';
import { CLI_MAIN } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'sg-watch-http-'));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  if (process.env.KEEP !== '1') rmSync(dir, { recursive: true, force: true });
});

/** Spawns the built CLI with `args`; resolves with the first stdout/stderr line matching `marker`. */
function start(args: string[], marker: RegExp): Promise<{ child: ChildProcess; match: string }> {
  const child = spawn(process.execPath, [CLI_MAIN, ...args], { cwd: REPO_ROOT });
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

const hash = (parts: string[]) => createHash('sha256').update(parts.join('\u0000')).digest('hex');

async function watchRun(mode: 'flawed' | 'fixed') {
  const f = (name: string) => join(dir, `${mode}-${name}`);
  const fixture = await start(
    ['fixture', '--transport', 'http', '--mode', mode, '--state-ttl', '1'],
    /\[fixture\] listening (\S+)/,
  );
  const upstream = new URL(fixture.match);
  // The tap: every request body and answer body as the fixture saw them, in order.
  const tapped: string[] = [];
  const tap = await startHttp((req, res) => {
    const body: Buffer[] = [];
    req.on('data', (c: Buffer) => body.push(c));
    req.on('end', () => {
      const sent = Buffer.concat(body).toString('utf8');
      const out = request(
        {
          host: upstream.hostname,
          port: upstream.port,
          path: req.url,
          method: req.method,
          headers: req.headers,
        },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          const got: Buffer[] = [];
          answer.on('data', (c: Buffer) => (got.push(c), res.write(c)));
          answer.on('end', () => {
            tapped.push(sent, Buffer.concat(got).toString('utf8'));
            res.end();
          });
        },
      );
      out.end(sent);
    });
  });
  const proxy = await start(
    [
      ...['watch', '--http', `${tap.url}${upstream.pathname}`],
      ...['--listen', '127.0.0.1:0', '--capture', f('capture.jsonl')],
      ...['--format', 'json', '--output', f('report.json'), '--max-age', '1s'],
    ],
    /\[watch\] listening (\S+)/,
  );
  const seen: string[] = [];
  const recording: typeof fetch = async (input, init) => {
    const answer = await fetch(input, init);
    const text = await answer.text();
    seen.push(typeof init?.body === 'string' ? init.body : '', text);
    return new Response(text, { status: answer.status, headers: answer.headers });
  };
  const clients = new Map<string, Client>();
  for (const who of ['alice', 'bob']) {
    const client = new Client(
      { name: 'stateguard-test', version: '0.0.0' },
      {
        versionNegotiation: { mode: { pin: '2026-07-28' } },
        inputRequired: { autoFulfill: false },
        capabilities: { elicitation: { form: {} } },
      },
    );
    const token = `token-${who}-0123456789`;
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${proxy.match}${upstream.pathname}`), {
        authProvider: { token: async () => token },
        fetch: recording,
      }),
    );
    clients.set(who, client);
  }
  await runScenario((who, params) => attempt(clients.get(who) as Client, 'tools/call', params));
  for (const c of clients.values()) await c.close();
  const exited = new Promise((resolve) => proxy.child.once('exit', resolve));
  proxy.child.kill('SIGTERM');
  await exited;
  fixture.child.kill('SIGTERM');
  await tap.close();
  const report = JSON.parse(readFileSync(f('report.json'), 'utf8')) as {
    probes: { id: string; verdict: string; lines?: number[] }[];
  };
  return { f, seen, tapped, report, code: proxy.child.exitCode };
}

const confirmed = (report: { probes: { id: string; verdict: string; lines?: number[] }[] }) =>
  report.probes.filter((p) => p.verdict === 'confirmed').map((p) => ({ id: p.id, lines: p.lines }));

describe('watch --http with the SDK client and the fixture twins', { timeout: 90_000 }, () => {
  for (const mode of ['flawed', 'fixed'] as const) {
    it(`${mode}: relays every body unchanged, and judges the traffic`, async () => {
      const { f, seen, tapped, report, code } = await watchRun(mode);
      expect(seen.length).toBeGreaterThan(10);
      expect(hash(tapped)).toBe(hash(seen));
      expect(code).toBe(1);

      const ids = new Set(confirmed(report).map((x) => x.id));
      for (const id of SERVER_FINDINGS) expect(ids.has(id), id).toBe(mode === 'flawed');
      expect(ids.has('client/state-altered')).toBe(true);
      expect(ids.has('client/state-invented')).toBe(false);

      const capture = readFileSync(f('capture.jsonl'), 'utf8');
      expect(capture).not.toContain('token-alice-0123456789');

      const check = spawnSync(
        process.execPath,
        [
          ...[CLI_MAIN, 'check', f('capture.jsonl')],
          ...['--format', 'json', '--output', f('check.json'), '--max-age', '1s'],
        ],
        { cwd: REPO_ROOT, encoding: 'utf8', timeout: 30_000 },
      );
      expect(check.status).toBe(1);
      expect(confirmed(JSON.parse(readFileSync(f('check.json'), 'utf8')))).toEqual(
        confirmed(report),
      );
    });
  }
});
