/**
 * The HTTP proxy against a raw upstream: GET event streams, DELETE, headers both ways and a body
 * past the recording cap pass through byte for byte; the capture records SSE events one per line,
 * the session id as a digest, and the oversized body by size only.
 */
import { spawnSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import {
  CaptureWriter,
  MAX_RECORDED_MESSAGE,
  parseCapture,
  type CaptureLine,
} from '../../src/watch/capture.js';
import { startHttpProxy } from '../../src/watch/http-proxy.js';
import { startHttp, type RunningHttp } from '../helpers/http.js';
import { REPO_ROOT } from '../helpers/spawn-stdio.js';
import { CLI_MAIN } from '../helpers/cli.js';

const EVENTS =
  'event: message\ndata: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}\n\n' +
  ': a comment\n\ndata: {"jsonrpc":"2.0","id":7,"result":{"content":[],"taskId":"task-1"}}\n\n';

const servers: { close(): Promise<void> }[] = [];
afterAll(async () => {
  for (const s of servers) await s.close();
});

describe('HTTP proxy passthrough', () => {
  it('relays GET streams, DELETE, headers and oversized bodies unchanged, and records them', async () => {
    const seen: { method: string; header?: string; bytes: number }[] = [];
    const upstream: RunningHttp = await startHttp((req, res) => {
      let bytes = 0;
      req.on('data', (c: Buffer) => (bytes += c.length));
      req.on('end', () => {
        seen.push({ method: req.method ?? '', header: req.headers['x-custom'] as string, bytes });
        if (req.method === 'GET') {
          res.writeHead(200, { 'content-type': 'text/event-stream', 'mcp-session-id': '42' });
          // In two pieces, split inside an event.
          res.write(EVENTS.slice(0, 40));
          setTimeout(() => res.end(EVENTS.slice(40)), 20);
        } else if (req.method === 'DELETE') {
          res.writeHead(204, { 'x-back': 'yes' }).end();
        } else {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(`{"jsonrpc":"2.0","id":1,"result":{"pad":"${'x'.repeat(bytes)}"}}`);
        }
      });
    });
    servers.push(upstream);
    const lines: string[] = [];
    const capture = new CaptureWriter('http', upstream.url, (l) => lines.push(l));
    const proxy = await startHttpProxy({
      upstream: new URL(`${upstream.url}/mcp`),
      host: '127.0.0.1',
      port: 0,
      capture,
      principal: { metaKey: 'io.modelcontextprotocol/principal' },
    });
    servers.push(proxy);

    const get = await fetch(`${proxy.url}/mcp?x=1`, {
      headers: { 'x-custom': 'a', authorization: 'Bearer secret-token-123' },
    });
    expect(get.headers.get('mcp-session-id')).toBe('42');
    expect(await get.text()).toBe(EVENTS);
    const del = await fetch(`${proxy.url}/mcp`, { method: 'DELETE', headers: { 'x-custom': 'b' } });
    expect(del.status).toBe(204);
    expect(del.headers.get('x-back')).toBe('yes');
    const big = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { p: 'y'.repeat(MAX_RECORDED_MESSAGE) },
    });
    const post = await fetch(`${proxy.url}/mcp`, {
      method: 'POST',
      body: big,
      headers: { 'content-type': 'application/json' },
    });
    const answer = await post.text();
    expect(answer.length).toBeGreaterThan(MAX_RECORDED_MESSAGE);
    expect(JSON.parse(answer)).toMatchObject({ id: 1 });
    expect(seen).toEqual([
      { method: 'GET', header: 'a', bytes: 0 },
      { method: 'DELETE', header: 'b', bytes: 0 },
      { method: 'POST', bytes: Buffer.byteLength(big) },
    ]);

    // Recording trails the relay by a tick at most.
    await new Promise((r) => setTimeout(r, 50));
    const parsed = parseCapture(lines.join(''));
    if ('problem' in parsed) throw new Error(parsed.problem);
    const l: CaptureLine[] = parsed.lines;
    const events = l.filter((x) => x.dir === 's2c' && x.http?.method === 'GET');
    expect(events.map((x) => (x.msg as { id?: number }).id ?? 'note')).toEqual(['note', 7]);
    expect(events[0]?.http?.session).toMatch(/^[0-9a-f]{16}$/);
    expect(events[0]?.http?.sessionBits).toBeLessThan(64);
    const oversize = l.filter((x) => x.skipped?.why === 'oversize');
    expect(oversize.map((x) => x.dir)).toEqual(['c2s', 's2c']);
    expect(lines.join('')).not.toContain('secret-token-123');
    expect(lines.join('')).not.toContain('"42"');
  });

  it('check: --help, and a file that is not a capture is a usage error', () => {
    const run = (...args: string[]) =>
      spawnSync(process.execPath, [CLI_MAIN, 'check', ...args], {
        cwd: REPO_ROOT,
        encoding: 'utf8',
        timeout: 30_000,
      });
    const help = run('--help');
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('--max-age');
    const bad = run('package.json');
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('not a stateguard capture header');
  });
});

describe('watch usage', () => {
  const run = (...args: string[]) =>
    spawnSync(process.execPath, [CLI_MAIN, 'watch', ...args], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      timeout: 30_000,
    });
  it('refuses what it cannot run, with exit 2, and helps', () => {
    expect(run('--help').stdout).toContain('--capture');
    const shell = run('--stdio', 'node s.js | tee x', '--capture', '/tmp/sg-never.jsonl');
    expect([shell.status, shell.stderr]).toEqual([2, expect.stringContaining('runs no shell')]);
    const noCapture = run('--stdio', 'node s.js');
    expect([noCapture.status, noCapture.stderr]).toEqual([2, expect.stringContaining('--capture')]);
    const noListen = run('--http', 'http://127.0.0.1:1/mcp', '--capture', '/tmp/sg-never.jsonl');
    expect([noListen.status, noListen.stderr]).toEqual([2, expect.stringContaining('--listen')]);
  });
});
