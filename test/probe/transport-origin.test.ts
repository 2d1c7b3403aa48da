/**
 * `transport/origin` against the workspace twins and a stub: a foreign Origin served is confirmed,
 * a 403 refuted, stdio skipped, and an answer that is neither (a 5xx, a 401) errored with the
 * answer named, never read as either.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { startFixtureHttp, type FixtureHttp } from '../../src/fixture/http.js';
import { findProbe } from '../../src/probe/runner/registry.js';
import { runScan } from '../../src/probe/runner/scan.js';
import type { ProbeResult } from '../../src/probe/model/report.js';
import type { Target } from '../../src/probe/model/target.js';
import { startHttp, type RunningHttp } from '../helpers/http.js';
import { builtFixtureStdio } from '../helpers/cli.js';

const probe = findProbe('transport/origin');
if (probe === undefined) throw new Error('transport/origin is not registered');

const running: (FixtureHttp | RunningHttp)[] = [];
afterAll(async () => {
  await Promise.all(running.map((r) => r.close()));
});

async function scan(target: Target): Promise<ProbeResult> {
  const report = await runScan({ target, probes: [probe!] });
  const result = report.probes[0];
  if (result === undefined) throw new Error('no result');
  return result;
}

async function fixture(mode: 'fixed' | 'no-origin' | 'legacy'): Promise<Target> {
  const f = await startFixtureHttp({ mode });
  running.push(f);
  return { kind: 'http', url: f.url };
}

/** A modern stub that answers its list, and `status` to any request with an Origin. */
async function stub(status: number): Promise<Target> {
  const server = await startHttp((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const { id, method } = JSON.parse(body) as { id: number; method: string };
      res.setHeader('content-type', 'application/json');
      if (req.headers.origin !== undefined) {
        res.statusCode = status;
        res.end(JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32603, message: 'no' } }));
        return;
      }
      const result =
        method === 'server/discover'
          ? { supportedVersions: ['2026-07-28'], resultType: 'complete' }
          : method === 'tools/list'
            ? { tools: [], resultType: 'complete' }
            : undefined;
      res.end(
        JSON.stringify(
          result
            ? { jsonrpc: '2.0', id, result }
            : { jsonrpc: '2.0', id, error: { code: -32601, message: 'Method not found' } },
        ),
      );
    });
  });
  running.push(server);
  return { kind: 'http', url: `${server.url}/mcp` };
}

describe('transport/origin', () => {
  it('is confirmed when a foreign Origin is served like any request', async () => {
    const r = await scan(await fixture('no-origin'));
    expect({ verdict: r.verdict, reason: r.reason }).toMatchObject({ verdict: 'confirmed' });
    expect(r.controls['ordinaryRequestAnswered']?.held).toBe(true);
    // The Host check is its own defence: an observation, never the verdict.
    expect(r.observations.map((o) => o.label)).toContain('Host checked');
  });

  it('is refuted when a foreign Origin gets 403, on a 2025-11-25 server too', async () => {
    for (const mode of ['fixed', 'legacy'] as const) {
      const r = await scan(await fixture(mode));
      expect({ mode, verdict: r.verdict }).toEqual({ mode, verdict: 'refuted' });
      expect(r.reason).toMatch(/403/);
    }
  });

  it('is skipped over stdio, which carries no Origin', async () => {
    const { command, args } = builtFixtureStdio('fixed');
    const r = await scan({ kind: 'stdio', command, args });
    expect(r.verdict).toBe('skipped');
    expect(r.reason).toMatch(/Streamable HTTP/);
  });

  it('is errored, naming the answer, on a 5xx or a 401 to the foreign Origin', async () => {
    for (const status of [500, 401]) {
      const r = await scan(await stub(status));
      expect({ status, verdict: r.verdict }).toEqual({ status, verdict: 'errored' });
      expect(r.reason).toContain(`HTTP ${status}`);
    }
  });

  it('asks the Origin question as A, to its own Host, of a server that demands credentials', async () => {
    // Every request without a bearer token is 401, whatever its Origin; with one, it is served.
    const seen: Record<string, unknown>[] = [];
    const server = await startHttp((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        const { id, method } = JSON.parse(body) as { id: number; method: string };
        seen.push({ ...req.headers, method });
        res.setHeader('content-type', 'application/json');
        if (req.headers.authorization === undefined) {
          res.statusCode = 401;
          res.end(JSON.stringify({ error: 'invalid_token' }));
          return;
        }
        const result = method === 'tools/list' ? { tools: [], resultType: 'complete' } : undefined;
        res.end(
          JSON.stringify(
            result
              ? { jsonrpc: '2.0', id, result }
              : { jsonrpc: '2.0', id, error: { code: -32601, message: 'Method not found' } },
          ),
        );
      });
    });
    running.push(server);
    const r = await scan({ kind: 'http', url: `${server.url}/mcp` });
    expect({ verdict: r.verdict, reason: r.reason }).toMatchObject({ verdict: 'confirmed' });
    const foreignHost = seen.filter((h) => String(h['host']).includes('invalid'));
    expect(foreignHost).toHaveLength(1);
    expect(foreignHost[0]?.['authorization']).toBeUndefined();
    const withOrigin = seen.filter((h) => h['origin'] !== undefined);
    expect(withOrigin.map((h) => h['authorization'] !== undefined)).toEqual([true]);
    for (const h of withOrigin) expect(String(h['host'])).toContain('127.0.0.1');
    // The ordinary request as A is the opening's tools/list: cited, not sent again.
    const asA = seen.filter(
      (h) =>
        h['method'] === 'tools/list' &&
        h['authorization'] !== undefined &&
        h['origin'] === undefined,
    );
    expect(asA).toHaveLength(1);
    expect(r.evidence).toContainEqual(
      expect.objectContaining({
        kind: 'note',
        text: "tools/list as A: the opening's request, the same one, cited and not sent again",
      }),
    );
    expect(r.controls['ordinaryRequestAnswered']?.held).toBe(true);
  });

  it('sends no credential with a foreign Origin or Host, and needs no ping', async () => {
    // A server that answers tools/list and refuses ping (-32601), and records what it received.
    const seen: { method: string; headers: Record<string, unknown> }[] = [];
    const server = await startHttp((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        const { id, method } = JSON.parse(body) as { id: number; method: string };
        seen.push({ method, headers: { ...req.headers } });
        res.setHeader('content-type', 'application/json');
        const result = method === 'tools/list' ? { tools: [], resultType: 'complete' } : undefined;
        res.end(
          JSON.stringify(
            result
              ? { jsonrpc: '2.0', id, result }
              : { jsonrpc: '2.0', id, error: { code: -32601, message: 'Method not found' } },
          ),
        );
      });
    });
    running.push(server);
    const report = await runScan({
      target: { kind: 'http', url: `${server.url}/mcp` },
      probes: [probe!],
      identityHeader: { name: 'X-Api-Key', value: '{identity}' },
      headers: [{ name: 'X-Tenant-Secret', value: 'tenant-secret-value' }],
    });
    const r = report.probes[0]!;
    // Served like any other request: confirmed, not errored on a refused ping.
    expect({ verdict: r.verdict, reason: r.reason }).toMatchObject({ verdict: 'confirmed' });
    expect(seen.some((s) => s.method === 'ping')).toBe(false);
    const probed = seen.filter(
      (s) => s.headers['origin'] !== undefined || String(s.headers['host']).includes('invalid'),
    );
    expect(probed).toHaveLength(2);
    // The opening carried the identity; the Host/Origin requests carry none.
    expect(seen[0]?.headers['x-api-key']).toBeDefined();
    for (const s of probed) {
      expect(s.method).toBe('tools/list');
      expect(s.headers['authorization']).toBeUndefined();
      expect(s.headers['x-api-key']).toBeUndefined();
      expect(s.headers['x-tenant-secret']).toBeUndefined();
      expect(s.headers['mcp-session-id']).toBeUndefined();
    }
  });
});
