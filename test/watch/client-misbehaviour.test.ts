/**
 * The three client judgements that only a misbehaving client shows, end to end: a thin raw
 * JSON-RPC client (the official client keeps the state it was given and sends it back once, so it
 * cannot misbehave this way) drives the fixed fixture's report wizard through `stateguard watch`,
 * over stdio and over HTTP, and
 * - sends one state on two retries at once (`client/state-parallel`),
 * - answers the input request without the state (`client/state-dropped`),
 * - sends a state no answer issued (`client/state-invented`),
 * - or behaves (none of the three).
 * Each finding is checked against the capture lines it points at, and `stateguard check` on the
 * capture gives the live findings. Over HTTP a tap between the proxy and the fixture holds each
 * request 300 ms, so two requests sent at once are both on the wire before either is answered.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { quote } from 'shell-quote';
import { afterAll, describe, expect, it } from 'vitest';
import { fixtureStdioCommand } from '../../harness/fixture/stdio-command.js';
import { PRINCIPAL_META_KEY } from '../../src/sdk/principal.js';
import { parseCapture, type CaptureLine } from '../../src/watch/capture.js';
import { envelope, parseBody, post, type Json } from '../fixture/driver.js';
import { sourceEntry } from '../../harness/node-entry.js';
import { CLI_MAIN } from '../helpers/cli.js';
import { startHttp } from '../helpers/http.js';
import { REPO_ROOT } from '../helpers/spawn-stdio.js';

const dir = mkdtempSync(join(tmpdir(), 'sg-watch-client-'));
const children: ChildProcess[] = [];
const closers: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  for (const close of closers) await close();
  rmSync(dir, { recursive: true, force: true });
});

const CLI = [CLI_MAIN];
const HOLD_MS = 300;
const WAIT_MS = 20_000;

type Behaviour = 'parallel' | 'dropped' | 'invented' | 'good';
type Message = Record<string, unknown>;

/** A raw client through the proxy: send messages at once, then stop the proxy for its report. */
interface Wire {
  sendAll(messages: Message[]): Promise<Record<string, Json>[]>;
  finish(): Promise<void>;
}

async function until(done: () => boolean, what: string): Promise<void> {
  const end = Date.now() + WAIT_MS;
  while (!done()) {
    if (Date.now() > end) throw new Error(`${what} did not happen in ${WAIT_MS} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function spawnCli(args: string[]): ChildProcess {
  const child = spawn(process.execPath, [...CLI, ...args], {
    cwd: REPO_ROOT,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  children.push(child);
  return child;
}

const outputs = (base: string) => [
  ...['--capture', `${base}.jsonl`, '--format', 'json', '--output', `${base}.json`],
];

function stdioWire(base: string): Wire {
  const { command, args } = fixtureStdioCommand('fixed');
  const child = spawnCli(['watch', '--stdio', quote([command, ...args]), ...outputs(base)]);
  const answers = new Map<unknown, Record<string, Json>>();
  let buf = '';
  child.stdout?.on('data', (c: Buffer) => {
    buf += c.toString('utf8');
    let i: number;
    while ((i = buf.indexOf('\n')) >= 0) {
      const m = JSON.parse(buf.slice(0, i)) as Record<string, Json>;
      buf = buf.slice(i + 1);
      answers.set(m['id'], m);
    }
  });
  return {
    async sendAll(messages) {
      // One write: the proxy records every request before the server can answer any.
      child.stdin?.write(messages.map((m) => `${JSON.stringify(m)}\n`).join(''));
      await until(() => messages.every((m) => answers.has(m['id'])), 'the answers');
      return messages.map((m) => answers.get(m['id']) as Record<string, Json>);
    },
    async finish() {
      const exited = new Promise((r) => child.once('exit', r));
      child.stdin?.end();
      await exited;
    },
  };
}

/** Starts a watched HTTP fixture behind a tap that holds each request {@link HOLD_MS}. */
async function httpWire(base: string): Promise<Wire> {
  const server = spawn(
    process.execPath,
    [...sourceEntry('harness/fixture/main.ts'), '--transport', 'http', '--mode', 'fixed'],
    { cwd: REPO_ROOT, stdio: ['pipe', 'pipe', 'pipe'] },
  );
  children.push(server);
  const marker = (child: ChildProcess, re: RegExp) =>
    new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ${re}`)), WAIT_MS);
      let seen = '';
      const look = (c: Buffer) => {
        seen += c.toString('utf8');
        const m = re.exec(seen);
        if (m) {
          clearTimeout(timer);
          resolve(m[1] as string);
        }
      };
      child.stdout?.on('data', look);
      child.stderr?.on('data', look);
    });
  const upstream = new URL(await marker(server, /\[fixture\] listening (\S+)/));
  const tap = await startHttp((req, res) => {
    const body: Buffer[] = [];
    req.on('data', (c: Buffer) => body.push(c));
    req.on('end', () => {
      setTimeout(() => {
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
            answer.pipe(res);
          },
        );
        out.end(Buffer.concat(body));
      }, HOLD_MS);
    });
  });
  closers.push(() => tap.close());
  const proxy = spawnCli([
    ...['watch', '--http', `${tap.url}${upstream.pathname}`, '--listen', '127.0.0.1:0'],
    ...outputs(base),
  ]);
  const url = `${await marker(proxy, /\[watch\] listening (\S+)/)}${upstream.pathname}`;
  return {
    async sendAll(messages) {
      const answers = await Promise.all(messages.map((m) => post(url, m, { token: 'alice-1' })));
      return answers.map((a) => parseBody(a.text));
    },
    async finish() {
      const exited = new Promise((r) => proxy.once('exit', r));
      proxy.kill('SIGTERM');
      await exited;
      server.kill('SIGTERM');
    },
  };
}

let nextId = 1;
const call = (params: Message): Message => ({
  jsonrpc: '2.0',
  id: nextId++,
  method: 'tools/call',
  params: {
    name: 'create_report',
    arguments: {},
    ...params,
    _meta: { ...envelope(), [PRINCIPAL_META_KEY]: 'alice' },
  },
});
const pick = (dataset: string) => ({
  inputResponses: { pick_dataset: { action: 'accept', content: { dataset } } },
});

/** Drives the wizard as `behaviour` says. */
async function drive(wire: Wire, behaviour: Behaviour): Promise<void> {
  if (behaviour === 'invented') {
    // A state in a flow nothing opened: no answer issued it (one sent in place of an issued state
    // would be an alteration instead).
    const made = Buffer.from('{"step":2,"dataset":"sales"}').toString('base64url');
    await wire.sendAll([call({ requestState: made, ...pick('a') })]);
    return;
  }
  const [first] = await wire.sendAll([call({})]);
  const state = first?.['result']?.['requestState'] as string;
  expect(typeof state).toBe('string');
  if (behaviour === 'parallel')
    await wire.sendAll([
      call({ requestState: state, ...pick('a') }),
      call({ requestState: state, ...pick('b') }),
    ]);
  else if (behaviour === 'dropped') await wire.sendAll([call(pick('a'))]);
  else await wire.sendAll([call({ requestState: state, ...pick('a') })]);
}

interface Confirmed {
  id: string;
  lines: number[];
}
const confirmedIn = (file: string): Confirmed[] =>
  (
    JSON.parse(readFileSync(file, 'utf8')) as {
      probes: { id: string; verdict: string; lines?: number[] }[];
    }
  ).probes
    .filter((p) => p.verdict === 'confirmed')
    .map((p) => ({ id: p.id, lines: p.lines ?? [] }));

const CLIENT = ['client/state-parallel', 'client/state-dropped', 'client/state-invented'];

/** What the capture lines a finding points at must show. */
function checkLines(behaviour: Behaviour, lines: readonly number[], capture: CaptureLine[]): void {
  const at = (n: number) => capture.find((l) => l.n === n) as CaptureLine;
  const sent = (l: CaptureLine) => l.states?.find((s) => s.at === 'params')?.digest;
  const issued = capture.flatMap((l) =>
    l.dir === 's2c' ? (l.states ?? []).filter((s) => s.at === 'result').map((s) => s.digest) : [],
  );
  if (behaviour === 'parallel') {
    const [a, b] = lines.map(at) as [CaptureLine, CaptureLine];
    expect([a.dir, b.dir]).toEqual(['c2s', 'c2s']);
    expect(sent(a)).toBeDefined();
    expect(sent(b)).toBe(sent(a));
    expect(issued).toContain(sent(a));
    // Both were sent before either was answered.
    const answered = capture.filter((l) => l.dir === 's2c' && l.re === a.n);
    expect(answered.every((l) => l.n > b.n)).toBe(true);
  } else if (behaviour === 'dropped') {
    const [issuedAt, retry] = lines.map(at) as [CaptureLine, CaptureLine];
    expect(issuedAt.dir).toBe('s2c');
    expect((issuedAt.msg as Json).result.resultType).toBe('input_required');
    expect(retry.dir).toBe('c2s');
    expect((retry.msg as Json).params.inputResponses).toBeDefined();
    expect(retry.states ?? []).toEqual([]);
  } else {
    const [line] = lines.map(at) as [CaptureLine];
    expect(line.dir).toBe('c2s');
    expect(issued).not.toContain(sent(line));
  }
}

describe('watch: a misbehaving client, end to end', { timeout: 120_000 }, () => {
  for (const transport of ['stdio', 'http'] as const) {
    it(`${transport}: each misbehaviour is confirmed at its lines, none for a client that behaves`, async () => {
      for (const behaviour of ['parallel', 'dropped', 'invented', 'good'] as const) {
        const base = join(dir, `${transport}-${behaviour}`);
        const wire = transport === 'stdio' ? stdioWire(base) : await httpWire(base);
        await drive(wire, behaviour);
        await wire.finish();
        await until(() => existsSync(`${base}.json`), 'the report');
        const found = confirmedIn(`${base}.json`);
        const client = found.filter((f) => CLIENT.includes(f.id));
        if (behaviour === 'good') expect(client, behaviour).toEqual([]);
        else {
          expect(
            client.map((f) => f.id),
            behaviour,
          ).toEqual([`client/state-${behaviour}`]);
          const capture = parseCapture(readFileSync(`${base}.jsonl`, 'utf8'));
          if ('problem' in capture) throw new Error(capture.problem);
          checkLines(behaviour, client[0]?.lines ?? [], capture.lines);
        }
        const check = spawnSync(
          process.execPath,
          [...CLI, 'check', `${base}.jsonl`, '--format', 'json', '--output', `${base}-check.json`],
          { cwd: REPO_ROOT, encoding: 'utf8', timeout: 30_000 },
        );
        if (found.length > 0) expect(check.status, check.stderr).toBe(1);
        else expect(check.status, check.stderr).not.toBe(1);
        expect(confirmedIn(`${base}-check.json`)).toEqual(found);
      }
    });
  }
});
