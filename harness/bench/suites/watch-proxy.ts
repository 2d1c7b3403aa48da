/**
 * Suite "watch-proxy": what `stateguard watch` adds to a round trip. One operation is a
 * `tools/call` answered by a server that works 2 ms (a timer) or answers at once, sent directly or
 * through the proxy (recording to a capture), over stdio and over HTTP. Over HTTP two relays run
 * side by side: the byte relay (what `watch --http` uses for an `http:` upstream) and the
 * terminating relay (Node's HTTP server and client: kept for `https:` upstreams, and what `http:`
 * used before). The paths take turns request by request, in a rotating order, so load on the
 * shared machine lands on all alike; p50 and p99 latency, sequential throughput and each proxy's
 * CPU time per exchange come from the same samples. Then each proxy's resident memory after
 * `BENCH_WATCH_EXCHANGES` exchanges (default 100 000) shows it stays bounded.
 * `BENCH_WATCH_KEEPALIVE=0` opens a connection per HTTP request; `BENCH_WATCH_VARIANTS` runs other
 * builds of the byte relay beside this one.
 *
 * Server, proxies and client are separate processes: the proxy is the built CLI
 * (`dist-harness/src/cli/main.js`); the terminating relay, which no flag selects for `http:`, is
 * started by a small script from the same build's `src/watch/http-proxy.js`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { formatCount, formatRatio, type BenchSuite, type Check, type Table } from '../harness.js';

const CLI = fileURLToPath(new URL('../../../src/cli/main.js', import.meta.url));
const WATCH = new URL('../../../src/watch/', import.meta.url).href;
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

/**
 * An HTTP client on keep-alive connections, or (`BENCH_WATCH_KEEPALIVE=0`) one that opens a
 * connection per request, as clients with no connection reuse do.
 */
function httpClient(url: string): Send {
  const keepAlive = process.env.BENCH_WATCH_KEEPALIVE !== '0';
  const agent = keepAlive ? new Agent({ keepAlive, maxSockets: BATCH }) : false;
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

/**
 * A proxy as `watch --http` runs one (no judging at the end), with the relay named: for the
 * terminating relay, which no flag selects for `http:`, and for the byte relay without a capture.
 */
const PROXY = `
const [upstream, relay, watch, capturePath] = process.argv.slice(2);
const { startHttpProxy } = await import(watch + 'http-proxy.js');
const { CaptureWriter } = await import(watch + 'capture.js');
const { CaptureFile } = await import(watch + 'capture-file.js');
const file = capturePath === undefined ? undefined : new CaptureFile(capturePath);
const capture = file === undefined ? undefined : new CaptureWriter('http', upstream, file.write);
const proxy = await startHttpProxy({ upstream: new URL(upstream), host: '127.0.0.1', port: 0, capture,
  principal: { metaKey: 'io.modelcontextprotocol/principal' }, relay });
process.stderr.write('[watch] listening ' + proxy.url + '\\n');
process.once('SIGTERM', () => proxy.close().then(() => { file?.close(); process.exit(0); }));
`;

/** One way to send a request: directly, or through one of the proxies (its process). */
interface Path {
  readonly name: string;
  readonly send: Send;
  readonly proxy?: ChildProcess;
}

interface Setup {
  readonly paths: Path[];
  readonly children: ChildProcess[];
}

async function setup(
  transport: 'stdio' | 'http',
  delay: number,
  dir: string,
  script: string,
): Promise<Setup> {
  const server = (): ChildProcess => node([script, String(delay), transport]);
  const capture = (name: string): string => join(dir, `${transport}-${delay}-${name}.jsonl`);
  if (transport === 'stdio') {
    const direct = server();
    const command = `${process.execPath} ${script} ${delay} stdio`;
    const proxy = node([CLI, 'watch', '--stdio', command, '--capture', capture('watch')]);
    return {
      paths: [
        { name: 'direct', send: stdioClient(direct) },
        { name: 'watch --stdio', send: stdioClient(proxy), proxy },
      ],
      children: [direct, proxy],
    };
  }
  const upstream = server();
  const url = await marker(upstream, /\[bench\] listening (\S+)/);
  const listen = ['--listen', '127.0.0.1:0', '--capture', capture('bytes')];
  const bytes = node([CLI, 'watch', '--http', url, ...listen]);
  const proxyScript = join(dir, 'proxy.mjs');
  writeFileSync(proxyScript, PROXY);
  const terminating = node([proxyScript, url, 'terminating', WATCH, capture('terminating')]);
  const bare = node([proxyScript, url, 'bytes', WATCH]);
  const others = variants().map(([label, watch], i) => ({
    label,
    child: node([proxyScript, url, 'bytes', watch, capture(`variant-${i}`)]),
  }));
  const via = async (p: ChildProcess): Promise<Send> =>
    httpClient(`${await marker(p, /\[watch\] listening (\S+)/)}/mcp`);
  const paths: Path[] = [
    { name: 'direct', send: httpClient(url) },
    { name: 'terminating relay (before)', send: await via(terminating), proxy: terminating },
    { name: 'byte relay, no capture', send: await via(bare), proxy: bare },
  ];
  for (const o of others) paths.push({ name: o.label, send: await via(o.child), proxy: o.child });
  paths.push({ name: 'byte relay (watch --http)', send: await via(bytes), proxy: bytes });
  return { paths, children: [upstream, bytes, terminating, bare, ...others.map((o) => o.child)] };
}

/**
 * Other builds of the byte relay to run beside this one (`BENCH_WATCH_VARIANTS`: comma-separated
 * `label=url-or-path of a built src/watch/ folder`), each recording a capture; for comparing a
 * change with the build before it in one run.
 */
function variants(): [string, string][] {
  const spec = process.env.BENCH_WATCH_VARIANTS ?? '';
  return spec
    .split(',')
    .filter((v) => v.includes('='))
    .map((v) => {
      const [label, dir] = v.split('=') as [string, string];
      const href = dir.startsWith('file:') ? dir : pathToFileURL(dir).href;
      return [label, href.endsWith('/') ? href : `${href}/`];
    });
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

/** CPU time (user + system) a process has used, in µs (Linux, 100 ticks a second), or NaN. */
function cpuMicros(pid: number | undefined): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10_000;
  } catch {
    return NaN;
  }
}

/** Latency samples of each path, taken in turns (the order rotates every request). */
async function sample(paths: readonly Path[], next: () => number): Promise<number[][]> {
  for (let i = 0; i < WARMUP; i++) for (const p of paths) await p.send(next());
  const samples = paths.map((): number[] => []);
  for (let i = 0; i < SAMPLES; i++)
    for (let k = 0; k < paths.length; k++) {
      const j = (i + k) % paths.length;
      const t = performance.now();
      await (paths[j] as Path).send(next());
      samples[j]?.push(performance.now() - t);
    }
  return samples.map((s) => s.sort((a, b) => a - b));
}

/** Resident memory before, halfway and after `exchanges` exchanges, 100 in flight. */
async function memory(path: Path, exchanges: number, next: () => number): Promise<number[]> {
  const pid = path.proxy?.pid;
  const before = rssMiB(pid);
  let halfway = NaN;
  for (let done = 0; done < exchanges; done += BATCH) {
    if (done === Math.floor(exchanges / 2 / BATCH) * BATCH) halfway = rssMiB(pid);
    const batch: Promise<void>[] = [];
    for (let i = 0; i < Math.min(BATCH, exchanges - done); i++) batch.push(path.send(next()));
    await Promise.all(batch);
  }
  return [before, halfway, rssMiB(pid)];
}

const µs = (ms: number): string => (ms * 1000).toFixed(0);

interface Results {
  readonly rows: string[][];
  readonly memRows: string[][];
  readonly checks: Check[];
}

/** The goal checks of the shipped path with the 2 ms handler. */
function goalChecks(transport: string, p50: number, p99: number): Check[] {
  return [
    {
      label: `${transport}, 2 ms handler: p50 proxied / direct`,
      actual: formatRatio(p50),
      target: '≤ 1.05×',
      met: p50 <= 1.05,
    },
    {
      label: `${transport}, 2 ms handler: p99 proxied / direct`,
      actual: formatRatio(p99),
      target: '≤ 1.20×',
      met: p99 <= 1.2,
    },
  ];
}

/** Measures one transport and handler: every path's latency, then each proxy's memory. */
async function measure(
  transport: 'stdio' | 'http',
  delay: number,
  s: Setup,
  exchanges: number,
  out: Results,
): Promise<void> {
  let id = 0;
  const next = (): number => ++id;
  const cpu0 = s.paths.map((p) => cpuMicros(p.proxy?.pid));
  const samples = await sample(s.paths, next);
  const direct = samples[0] as number[];
  const sum = (a: number[]): number => a.reduce((t, v) => t + v, 0);
  s.paths.forEach((path, j) => {
    const x = samples[j] as number[];
    const p50 = percentile(x, 50) / percentile(direct, 50);
    const p99 = percentile(x, 99) / percentile(direct, 99);
    const cpu = (cpuMicros(path.proxy?.pid) - (cpu0[j] as number)) / (SAMPLES + WARMUP);
    const proxied = j > 0;
    out.rows.push([
      transport,
      delay === 0 ? 'instant' : '2 ms',
      path.name,
      µs(percentile(x, 50)),
      µs(percentile(x, 99)),
      formatCount((x.length * 1000) / sum(x)),
      proxied ? `+${µs(percentile(x, 50) - percentile(direct, 50))} µs` : '',
      proxied ? formatRatio(p50) : '',
      proxied ? formatRatio(p99) : '',
      proxied ? cpu.toFixed(0) : '',
    ]);
    // The goal is the shipped path's: the last one of each transport.
    if (delay === 2 && j === s.paths.length - 1)
      out.checks.push(...goalChecks(transport, p50, p99));
  });
  if (delay !== 0) return;
  for (const path of s.paths) {
    if (path.proxy === undefined || path.name.includes('no capture')) continue;
    const rss = await memory(path, exchanges, next);
    out.memRows.push([
      transport,
      path.name,
      formatCount(exchanges),
      ...rss.map((m) => m.toFixed(1)),
    ]);
  }
}

const TABLE_NOTES = [
  `${SAMPLES} requests by each path after ${WARMUP} warm-up; server, proxies (each recording a`,
  'capture) and client are separate processes on loopback; one request in flight. CPU: the',
  "proxy process's user + system time (/proc/<pid>/stat, 10 ms ticks) over warm-up and samples,",
  'per exchange. BENCH_WATCH_TRANSPORT=stdio|http runs one transport only;',
  'BENCH_WATCH_KEEPALIVE=0 opens a connection per HTTP request; BENCH_WATCH_VARIANTS adds builds.',
];

export const watchProxySuite: BenchSuite = {
  name: 'watch-proxy',
  summary: 'tools/call round trips direct vs through stateguard watch, stdio and HTTP',
  async run() {
    const dir = mkdtempSync(join(tmpdir(), 'sg-bench-watch-'));
    const out: Results = { rows: [], memRows: [], checks: [] };
    const exchanges = Number(process.env.BENCH_WATCH_EXCHANGES ?? 100_000);
    const only = process.env.BENCH_WATCH_TRANSPORT;
    const script = join(dir, 'server.cjs');
    writeFileSync(script, SERVER);
    try {
      for (const transport of ['stdio', 'http'] as const) {
        if (only !== undefined && only !== transport) continue;
        for (const delay of [2, 0]) {
          const s = await setup(transport, delay, dir, script);
          try {
            await measure(transport, delay, s, exchanges, out);
          } finally {
            for (const c of s.children) {
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
        title: 'one tools/call round trip by each path (taking turns, same run)',
        columns: [
          ...['transport', 'handler', 'path', 'p50 µs', 'p99 µs', 'req/s (sequential)'],
          ...['added p50', 'p50 ratio', 'p99 ratio', 'proxy CPU µs/exchange'],
        ],
        rows: out.rows,
        notes: TABLE_NOTES,
      },
      {
        title: 'proxy resident memory (instant handler, 100 requests in flight)',
        columns: [
          'transport',
          'path',
          'exchanges',
          'RSS before MiB',
          'RSS halfway MiB',
          'RSS after MiB',
        ],
        rows: out.memRows,
        notes: [
          'BENCH_WATCH_EXCHANGES sets the count (default 100 000). Bounded memory shows as the',
          'halfway and final figures agreeing: the first half holds the heap settling under load.',
        ],
      },
    ];
    return { tables, checks: out.checks };
  },
};
