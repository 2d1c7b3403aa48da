/**
 * Issue 16: a server that writes headers and body apart without TCP_NODELAY must not stall the
 * scan. Judged on the per-exchange times the report records, with wide margins (a stall is 40 ms
 * against loopback exchanges of a few), never on a whole run's wall time.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureHttp, type FixtureHttp } from '../../../src/fixture/http.js';
import { startHttpFront, type HttpFront } from '../../../src/fixture/http-front.js';
import { PROBES } from '../../../src/probe/registry.js';
import { runScan } from '../../../src/probe/scan.js';
import {
  createHttpConnections,
  isLoopbackHost,
  type ConnectionPolicy,
} from '../../../src/probe/target/http-connection.js';
import type { RunReport } from '../../../src/probe/types.js';
import { startHttp, type RunningHttp } from '../../helpers/http.js';

/** Well under the ~40 ms delayed ACK, well over a loopback exchange. */
const STALL_MS = 35;

function exchangeTimes(report: RunReport): number[] {
  return report.probes.flatMap((p) => p.evidence.flatMap((e) => (e.kind === 'http' ? [e.ms] : [])));
}

function stalledShare(times: readonly number[]): number {
  return times.filter((ms) => ms >= STALL_MS).length / times.length;
}

function verdicts(report: RunReport): string[] {
  return report.probes.map((p) => `${p.id}=${p.verdict}`);
}

describe('a scan against a server that writes headers and body apart (issue 16)', () => {
  let fixture: FixtureHttp;
  let stalling: HttpFront;
  let ordinary: HttpFront;
  beforeAll(async () => {
    fixture = await startFixtureHttp({ mode: 'flawed' });
    stalling = await startHttpFront(fixture.url, { stall: true });
    ordinary = await startHttpFront(fixture.url, { stall: false });
  });
  afterAll(async () => {
    await stalling?.close();
    await ordinary?.close();
    await fixture?.close();
  });

  const scan = (url: string, connection?: ConnectionPolicy): Promise<RunReport> =>
    runScan({
      target: { kind: 'http', url, ...(connection ? { connection } : {}) },
      probes: PROBES,
      deadlineMs: 60_000,
    });

  it('shows the stall on one kept-alive connection (the control: the front really stalls)', async () => {
    const times = exchangeTimes(await scan(stalling.url, 'reuse'));
    expect(times.length).toBeGreaterThan(10);
    // The pattern is every other exchange or every one; a third is a wide margin below it.
    expect(stalledShare(times)).toBeGreaterThan(0.33);
  }, 60_000);

  it('records no alternating 40 ms stalls by default, and reaches the same verdicts as against an ordinary server', async () => {
    const stalled = await scan(stalling.url);
    const plain = await scan(ordinary.url);
    const times = exchangeTimes(stalled);
    expect(times.length).toBeGreaterThan(10);
    // The stall pattern would be half or all of the exchanges. A busy machine slows exchanges
    // against the ordinary server just as much, so the stalling server is judged against it.
    expect(stalledShare(times) - stalledShare(exchangeTimes(plain))).toBeLessThan(0.2);
    expect(verdicts(stalled)).toEqual(verdicts(plain));
    expect(verdicts(stalled)).toContain('state/tamper=confirmed');
  }, 60_000);

  it('gives up a kept-alive connection once an answer stalls, when adaptive', async () => {
    const times = exchangeTimes(await scan(stalling.url, 'adaptive'));
    const plain = exchangeTimes(await scan(ordinary.url, 'adaptive'));
    // The first answer on a reused connection stalls and switches the pool; the rest do not. Judged
    // against the ordinary server in the same test, so a busy machine does not read as a stall.
    expect(stalledShare(times) - stalledShare(plain)).toBeLessThan(0.2);
  }, 60_000);
});

describe('connection policy', () => {
  let server: RunningHttp;
  beforeAll(async () => {
    server = await startHttp((req, res) => {
      req.resume();
      req.on('end', () => {
        req.socket.setNoDelay(false);
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '2' });
        res.flushHeaders();
        setImmediate(() => res.end('{}'));
      });
    });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('treats localhost, 127.0.0.0/8 and ::1 as loopback, and nothing else', () => {
    for (const host of ['localhost', '127.0.0.1', '127.1.2.3', '[::1]', 'api.localhost'])
      expect(isLoopbackHost(host), host).toBe(true);
    for (const host of ['example.com', '10.0.0.1', '128.0.0.1', 'localhost.example.com'])
      expect(isLoopbackHost(host), host).toBe(false);
  });

  it('opens a fresh connection per exchange on loopback and keeps one alive elsewhere (auto)', () => {
    const near = createHttpConnections(`${server.url}/mcp`, 'auto');
    const far = createHttpConnections('https://mcp.example.com/mcp', 'auto');
    expect(near.mode()).toBe('fresh');
    expect(far.mode()).toBe('adaptive');
    near.close();
    far.close();
  });

  it('switches an adaptive pool to fresh connections after the first stalled answer', async () => {
    const pool = createHttpConnections(`${server.url}/mcp`, 'adaptive');
    try {
      for (let i = 0; i < 6 && pool.mode() === 'adaptive'; i++) {
        const answer = await pool.post(`${server.url}/mcp`, {}, '{}', AbortSignal.timeout(4000));
        for await (const chunk of answer.body) void chunk;
      }
      expect(pool.mode()).toBe('fresh');
    } finally {
      pool.close();
    }
  });
});
