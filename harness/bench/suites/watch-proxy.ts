/**
 * Suite "watch-proxy": what `stateguard watch` adds to a round trip. One operation is a
 * `tools/call` answered by a server that works 2 ms (a timer) or answers at once, sent directly or
 * through the proxy (recording to a capture), over stdio and over HTTP. Direct and proxied requests
 * alternate one by one, so load on the shared machine lands on both alike; p50 and p99 latency and
 * sequential throughput come from the same samples. Then the proxy's resident memory after
 * `BENCH_WATCH_EXCHANGES` exchanges (default 100 000) shows it stays bounded.
 *
 * Server, proxy and client are three processes: the proxy is the built CLI
 * (`dist-harness/src/cli/main.js`).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { formatCount, formatRatio, type BenchSuite, type Check, type Table } from '../harness.js';

const CLI = fileURLToPath(new URL('../../../src/cli/main.js', import.meta.url));
/** Requests per contender and handler. */
const SAMPLES = 2000;
const WARMUP = 200;
const BATCH = 100;
const TIMEOUT_MS = 20_000;

/** A JSON-RPC server on stdio or HTTP that answers every request after `delay` ms. */
const SERVER = `
const delay = Number(process.argv[2]); const mode = process.argv[3];
const answer = (id) => JSON.stringify({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: 'ok' }], resultType: 'complete' } });
const later = (f) => (delay > 0 ? setTimeout(f, delay) : setImmediate(f));
if (mode === 'http') {
  const s = require('node:http').createServer((req, res) => {
    let body = ''; req.on('data', (c) => (body += c));
    req.on('end', () => later(() => { const id = JSON.parse(body).id; res.writeHead(200, { 'content-type': 'application/json' }); res.end(answer(id)); }));
  });
  s.keepAliveTimeout = 60000;
  s.listen(0, '127.0.0.1', () => process.stderr.write('[bench] listening http://127.0.0.1:' + s.address().port + '/mcp\\n'));
} else {
  let buf = '';
  process.stdin.on('data', (c) => { buf += c; let i; while ((i = buf.indexOf('\\n')) >= 0) { const line = buf.slice(0, i); buf = buf.slice(i + 1); const id = JSON.parse(line).id; later(() => process.stdout.write(answer(id) + '\\n')); } });
  process.stdin.on('end', () => process.exit(0));
}`;

const message = (id: number): string =>
  JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name: 'echo', arguments: { text: 'hello' }, _meta: { 'x/principal': 'bench' } },
  });

/** Bounded wait for a line matching `marker` on a child's stderr. */
function marker(child: ChildProcess, re: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${re} in time`)), TIMEOUT_MS);
    let seen = '';
    child.stderr?.on('data', (c: Buffer) => {
      seen += c.toString('utf8');
      const m = re.exec(seen);
      if (m) {
        clearTimeout(timer);
        resolve(m[1] as string);
      }
    });
  });
}

/** Sends one request and resolves when its answer arrives. */
type Send = (id: number) => Promise<void>;

function stdioClient(child: ChildProcess): Send {
  const waiting = new Map<number, () => void>();
  let buf = '';
  child.stdout?.on('data', (c: Buffer) => {
    buf += c.toString('utf8');
    let i: number;
    while ((i = buf.indexOf('\n')) >= 0) {
      const { id } = JSON.parse(buf.slice(0, i)) as { id: number };
      buf = buf.slice(i + 1);
      waiting.get(id)?.();
      waiting.delete(id);
    }
  });
  return (id) =>
    new Promise<void>((resolve) => {
      waiting.set(id, resolve);
      child.stdin?.write(`${message(id)}\n`);
    });
}

function httpClient(url: string): Send {
  const agent = new Agent({ keepAlive: true, maxSockets: BATCH });
  return (id) =>
    new Promise<void>((resolve, reject) => {
      const body = message(id);
      const req = request(
        url,
        {
          method: 'POST',
          agent,
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            authorization: 'Bearer bench-token',
          },
        },
        (res) => {
          res.on('data', () => undefined);
          res.on('end', () => resolve());
        },
      );
      req.on('error', reject);
      req.end(body);
    });
}

const node = (args: string[]): ChildProcess =>
  spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'pipe'] });

interface Pair {
  readonly direct: Send;
  readonly proxied: Send;
  readonly proxy: ChildProcess;
  readonly children: ChildProcess[];
}

async function pair(
  transport: 'stdio' | 'http',
  delay: number,
  capture: string,
  script: string,
): Promise<Pair> {
  const server = (): ChildProcess => node([script, String(delay), transport]);
  if (transport === 'stdio') {
    const direct = server();
    const command = `${process.execPath} ${script} ${delay} stdio`;
    const proxy = node([CLI, 'watch', '--stdio', command, '--capture', capture]);
    return {
      direct: stdioClient(direct),
      proxied: stdioClient(proxy),
      proxy,
      children: [direct, proxy],
    };
  }
  const upstream = server();
  const url = await marker(upstream, /\[bench\] listening (\S+)/);
  const proxy = node([
    CLI,
    'watch',
    '--http',
    url,
    '--listen',
    '127.0.0.1:0',
    '--capture',
    capture,
  ]);
  const base = await marker(proxy, /\[watch\] listening (\S+)/);
  return {
    direct: httpClient(url),
    proxied: httpClient(`${base}/mcp`),
    proxy,
    children: [upstream, proxy],
  };
}

const percentile = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? NaN;

/** Resident memory of a process in MiB (Linux), or NaN. */
function rssMiB(pid: number | undefined): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]) / 1024;
  } catch {
    return NaN;
  }
}

export const watchProxySuite: BenchSuite = {
  name: 'watch-proxy',
  summary: 'tools/call round trips direct vs through stateguard watch, stdio and HTTP',
  async run() {
    const dir = mkdtempSync(join(tmpdir(), 'sg-bench-watch-'));
    const rows: string[][] = [];
    const memRows: string[][] = [];
    const checks: Check[] = [];
    const exchanges = Number(process.env.BENCH_WATCH_EXCHANGES ?? 100_000);
    const script = join(dir, 'server.cjs');
    writeFileSync(script, SERVER);
    try {
      for (const transport of ['stdio', 'http'] as const) {
        for (const delay of [2, 0]) {
          const p = await pair(transport, delay, join(dir, `${transport}-${delay}.jsonl`), script);
          try {
            let id = 0;
            for (let i = 0; i < WARMUP; i++) {
              await p.direct(++id);
              await p.proxied(++id);
            }
            const d: number[] = [];
            const x: number[] = [];
            for (let i = 0; i < SAMPLES; i++) {
              for (const [send, out] of i % 2 === 0
                ? ([
                    [p.direct, d],
                    [p.proxied, x],
                  ] as const)
                : ([
                    [p.proxied, x],
                    [p.direct, d],
                  ] as const)) {
                const t = performance.now();
                await send(++id);
                out.push(performance.now() - t);
              }
            }
            d.sort((a, b) => a - b);
            x.sort((a, b) => a - b);
            const sum = (a: number[]) => a.reduce((s, v) => s + v, 0);
            const p50 = [percentile(d, 50), percentile(x, 50)] as const;
            const p99 = [percentile(d, 99), percentile(x, 99)] as const;
            rows.push([
              transport,
              delay === 0 ? 'instant' : '2 ms',
              `${(p50[0] * 1000).toFixed(0)} / ${(p50[1] * 1000).toFixed(0)}`,
              `${(p99[0] * 1000).toFixed(0)} / ${(p99[1] * 1000).toFixed(0)}`,
              `${formatCount((d.length * 1000) / sum(d))} / ${formatCount((x.length * 1000) / sum(x))}`,
              `+${((p50[1] - p50[0]) * 1000).toFixed(0)} µs`,
            ]);
            if (delay === 2) {
              checks.push(
                {
                  label: `${transport}, 2 ms handler: p50 proxied / direct`,
                  actual: formatRatio(p50[1] / p50[0]),
                  target: '≤ 1.05×',
                  met: p50[1] / p50[0] <= 1.05,
                },
                {
                  label: `${transport}, 2 ms handler: p99 proxied / direct`,
                  actual: formatRatio(p99[1] / p99[0]),
                  target: '≤ 1.20×',
                  met: p99[1] / p99[0] <= 1.2,
                },
              );
            } else {
              // Memory: many exchanges through the proxy with the instant handler, in batches.
              const before = rssMiB(p.proxy.pid);
              let halfway = NaN;
              for (let done = 0; done < exchanges; done += BATCH) {
                if (done === Math.floor(exchanges / 2 / BATCH) * BATCH)
                  halfway = rssMiB(p.proxy.pid);
                const batch: Promise<void>[] = [];
                for (let i = 0; i < Math.min(BATCH, exchanges - done); i++)
                  batch.push(p.proxied(++id));
                await Promise.all(batch);
              }
              memRows.push([
                transport,
                formatCount(exchanges),
                before.toFixed(1),
                halfway.toFixed(1),
                rssMiB(p.proxy.pid).toFixed(1),
              ]);
            }
          } finally {
            for (const c of p.children) {
              c.stdin?.end();
              c.kill('SIGTERM');
            }
          }
        }
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const tables: Table[] = [
      {
        title: 'one tools/call round trip, direct / through the proxy (alternating, same run)',
        columns: ['transport', 'handler', 'p50 µs', 'p99 µs', 'req/s (sequential)', 'added p50'],
        rows,
        notes: [
          `${SAMPLES} requests each after ${WARMUP} warm-up; server, proxy (recording a capture) and`,
          'client are three processes on loopback; one request in flight.',
        ],
      },
      {
        title: 'proxy resident memory (instant handler, 100 requests in flight)',
        columns: ['transport', 'exchanges', 'RSS before MiB', 'RSS halfway MiB', 'RSS after MiB'],
        rows: memRows,
        notes: [
          'BENCH_WATCH_EXCHANGES sets the count (default 100 000). Bounded memory shows as the',
          'halfway and final figures agreeing: the first half holds the heap settling under load.',
        ],
      },
    ];
    return { tables, checks };
  },
};
