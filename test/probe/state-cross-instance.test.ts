/**
 * `state/cross-instance`: two instances of a twin, each with its own random key and its own memory
 * (every twin started twice), break a flow and a handle that hop between them (confirmed, over HTTP
 * and as two stdio processes); a fleet sharing its keys and its workspaces carries both (refuted);
 * without a peer the probe is skipped, naming the flags.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { startFixtureHttp, type FixtureHttp } from '../../src/fixture/http.js';
import { FIXTURE_SERVER_INFO } from '../../src/fixture/server.js';
import { createWorkspaceDirectory } from '../../src/fixture/workspaces.js';
import { findProbe } from '../../src/probe/runner/registry.js';
import { runScan } from '../../src/probe/runner/scan.js';
import type { ProbeResult } from '../../src/probe/model/report.js';
import type { Target } from '../../src/probe/model/target.js';
import { builtFixtureStdio } from '../helpers/cli.js';

const probe = findProbe('state/cross-instance');
if (probe === undefined) throw new Error('state/cross-instance is not registered');

const running: FixtureHttp[] = [];
afterAll(async () => {
  await Promise.all(running.map((r) => r.close()));
});

async function scan(target: Target, peer?: Target): Promise<ProbeResult> {
  const report = await runScan({ target, probes: [probe!], settings: peer ? { peer } : {} });
  return report.probes[0]!;
}

async function http(options: Parameters<typeof startFixtureHttp>[0]): Promise<Target> {
  const f = await startFixtureHttp(options);
  running.push(f);
  return { kind: 'http', url: f.url };
}

describe('state/cross-instance', () => {
  it('is confirmed over HTTP when each instance has its own key and memory', async () => {
    const r = await scan(await http({ mode: 'fixed' }), await http({ mode: 'fixed' }));
    expect({ verdict: r.verdict, reason: r.reason }).toMatchObject({ verdict: 'confirmed' });
    expect(r.reason).toMatch(/the flow export_workspace/);
    expect(r.reason).toMatch(/a handle of open_workspace/);
    expect(Object.values(r.controls).every((c) => c.held)).toBe(true);
  });

  it('is confirmed for two stdio processes', async () => {
    const { command, args } = builtFixtureStdio('fixed');
    const t: Target = { kind: 'stdio', command, args };
    const r = await scan(t, t);
    expect({ verdict: r.verdict, reason: r.reason }).toMatchObject({ verdict: 'confirmed' });
  });

  it('is refuted for a fleet that shares its keys and its workspaces', async () => {
    const keys = randomBytes(32);
    const workspaces = createWorkspaceDirectory({
      policy: 'bound',
      keys,
      audience: FIXTURE_SERVER_INFO.name,
    });
    const r = await scan(
      await http({ mode: 'fixed', keys, workspaces }),
      await http({ mode: 'fixed', keys, workspaces }),
    );
    expect({ verdict: r.verdict, reason: r.reason }).toMatchObject({ verdict: 'refuted' });
    expect(Object.values(r.controls).every((c) => c.held)).toBe(true);
  });

  it('is skipped without a peer, and errored when the peer does not answer', async () => {
    const target = await http({ mode: 'fixed' });
    const none = await scan(target);
    expect(none.verdict).toBe('skipped');
    expect(none.reason).toMatch(/--peer/);
    const dead = await scan(target, {
      kind: 'stdio',
      command: 'stateguard-no-such-peer',
      args: [],
    });
    expect(dead.verdict).toBe('errored');
    expect(dead.reason).toMatch(/peer did not answer/);
  });
});
