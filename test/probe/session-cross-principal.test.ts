/**
 * `session/cross-principal` against the `session-notes` twin (a 2025-11-25 server with sessions, on
 * the SDK's stateful transport) and the workspace twins: confirmed when B is served inside A's
 * session (A's id on a POST and on the GET stream, or no id at all), refuted when the session
 * binding refuses both, errored when an unknown id draws no decision, skipped where there are no
 * sessions (a 2026-07-28 server, a legacy server without session ids, stdio).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { sessionNotes } from '../../harness/twins/foreign/session-notes/index.js';
import type { RunningTwin } from '../../harness/twins/foreign/twin.js';
import { startFixtureHttp, type FixtureHttp } from '../../src/fixture/http.js';
import { findProbe } from '../../src/probe/runner/registry.js';
import { runScan } from '../../src/probe/runner/scan.js';
import type { Evidence } from '../../src/probe/model/evidence.js';
import type { ProbeResult } from '../../src/probe/model/report.js';
import type { Target } from '../../src/probe/model/target.js';
import { builtFixtureStdio } from '../helpers/cli.js';

const probe = findProbe('session/cross-principal');
if (probe === undefined) throw new Error('session/cross-principal is not registered');

const running: (RunningTwin | FixtureHttp)[] = [];
afterAll(async () => {
  await Promise.all(running.map((r) => r.close()));
});

async function scan(target: Target): Promise<ProbeResult> {
  // Verdicts, not speed: a loaded machine must not turn a slow answer into "no decision".
  const report = await runScan({
    target,
    probes: [probe!],
    timeoutMs: 30_000,
    deadlineMs: 120_000,
  });
  const result = report.probes[0];
  if (result === undefined) throw new Error('no result');
  return result;
}

async function twin(variant: string): Promise<Target> {
  const t = await sessionNotes.startHttp(variant);
  running.push(t);
  return { kind: 'http', url: t.url };
}

const http = (evidence: readonly Evidence[], label: string) => {
  const found = evidence.find((e) => e.kind === 'http' && e.label === label);
  if (found?.kind !== 'http') throw new Error(`no exchange '${label}'`);
  return found;
};

describe('session/cross-principal', () => {
  it("is confirmed when B presenting A's session id is served inside A's session, on POST and on the GET stream", async () => {
    const r = await scan(await twin('unbound-sessions'));
    expect({ verdict: r.verdict, reason: r.reason }).toMatchObject({ verdict: 'confirmed' });
    expect(r.reason).toContain('on a POST');
    expect(r.reason).toContain('GET stream');
    expect(Object.keys(r.controls).sort()).toEqual(['bOwnSession', 'forgedSessionDecided']);
    expect(Object.values(r.controls).every((c) => c.held)).toBe(true);
    // The experiment is in the evidence: B's credential, A's session by name, never the raw id.
    const cross = http(r.evidence, "B presents A's session id");
    expect(cross.identity).toBe('B');
    expect(cross.request.headers['authorization']).toBe('Bearer <identity-B>');
    expect(cross.request.headers['mcp-session-id']).toBe('<session-A>');
    const forged = http(r.evidence, 'B presents a forged session id of the same shape');
    expect(forged.response?.status).toBe(404);
    const stream = http(r.evidence, "B opens the GET stream with A's session id");
    expect(stream.request.method).toBe('GET');
    expect(stream.response?.status).toBe(200);
    expect(JSON.stringify(stream.received)).toContain('sg-stream-a-');
    const own = http(r.evidence, 'B opens the GET stream of its own session');
    expect(own.request.headers['mcp-session-id']).toBe('<session-B>');
    expect(JSON.stringify(own.received ?? [])).not.toContain('sg-stream-own-');
  }, 120_000);

  it('is confirmed when a request without a session id lands in the only live session', async () => {
    const r = await scan(await twin('only-session-fallback'));
    expect({ verdict: r.verdict, reason: r.reason }).toMatchObject({ verdict: 'confirmed' });
    expect(r.reason).toContain('without a session id');
    expect(r.reason).not.toContain('on a POST');
    const none = http(r.evidence, 'B sends a request without any session id');
    expect(none.request.headers['mcp-session-id']).toBeUndefined();
    expect(http(r.evidence, 'B ends its own session (DELETE)').response?.status).toBe(200);
  }, 120_000);

  it("is refuted when the session binding refuses A's id to B like an unknown one, and no id opens nothing", async () => {
    const r = await scan(await twin('fixed'));
    expect({ verdict: r.verdict, reason: r.reason }).toMatchObject({ verdict: 'refuted' });
    expect(Object.values(r.controls).every((c) => c.held)).toBe(true);
    const cross = http(r.evidence, "B presents A's session id");
    const forged = http(r.evidence, 'B presents a forged session id of the same shape');
    expect(cross.response?.status).toBe(404);
    expect(cross.response?.status).toBe(forged.response?.status);
    expect(cross.received).toEqual(forged.received);
    expect(http(r.evidence, "B opens the GET stream with A's session id").response?.status).toBe(
      404,
    );
    expect(http(r.evidence, 'B sends a request without any session id').response?.status).toBe(400);
  }, 120_000);

  it('is errored when an unknown session id draws no decision (a crashed lookup), never refuted', async () => {
    const r = await scan(await twin('crashing-lookup'));
    expect({ verdict: r.verdict, reason: r.reason }).toMatchObject({ verdict: 'errored' });
    expect(r.controls['forgedSessionDecided']?.held).toBe(false);
    expect(r.controls['forgedSessionDecided']?.observed).toContain('HTTP 500');
  }, 120_000);

  it('is skipped where there are no sessions: 2026-07-28, a legacy server without ids, stdio', async () => {
    for (const mode of ['fixed', 'legacy'] as const) {
      const f = await startFixtureHttp({ mode });
      running.push(f);
      const r = await scan({ kind: 'http', url: f.url });
      expect({ mode, verdict: r.verdict }).toEqual({ mode, verdict: 'skipped' });
      expect(r.reason).toMatch(
        mode === 'fixed' ? /2025-11-25 server/ : /without an Mcp-Session-Id/,
      );
    }
    const { command, args } = builtFixtureStdio('legacy');
    const r = await scan({ kind: 'stdio', command, args });
    expect(r.verdict).toBe('skipped');
    expect(r.reason).toMatch(/stdio has no sessions/);
  }, 120_000);
});
