/**
 * Experiments that used to stop before their decisive step (issue 34), each against a real server
 * on both transports (test/servers/stop-short.ts), its flawed variant confirmed and its correct
 * twin refuted: a JWS `alg: none` state whose harmless changes are accepted before the decisive one,
 * a consumer of two minted values flawed in its second slot, and a state carrying the unkeyed digest
 * of one of its own fields.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { PROBES } from '../../src/probe/runner/registry.js';
import { runScan } from '../../src/probe/runner/scan.js';
import type { ProbeResult } from '../../src/probe/model/report.js';
import type { TransportKind } from '../../src/probe/model/target.js';
import { startStopShortHttp, type Shape, type Variant } from '../servers/stop-short.js';
import { builtPath } from '../helpers/cli.js';

// This run's build of the server (test/helpers/built.ts): no tsx to load each time.
const SERVER = builtPath('test/servers/stop-short.ts');
const open: { close(): Promise<void> }[] = [];
afterAll(async () => {
  await Promise.all(open.map((s) => s.close()));
});

async function scan(
  shape: Shape,
  variant: Variant,
  transport: TransportKind,
  id: string,
): Promise<ProbeResult> {
  const probes = PROBES.filter((p) => p.id === id);
  let target;
  if (transport === 'http') {
    const server = await startStopShortHttp(shape, variant);
    open.push(server);
    target = { kind: 'http' as const, url: server.url };
  } else {
    target = {
      kind: 'stdio' as const,
      command: process.execPath,
      args: [SERVER, shape, variant],
    };
  }
  // Two busy cores: a slow answer must not read as no decision.
  // add_to_segment changes a segment: the call plan calls it only on the user's word.
  const allowTools = shape === 'second-slot' ? ['add_to_segment'] : [];
  const run = await runScan({ target, probes, timeoutMs: 30_000, deadlineMs: 120_000, allowTools });
  const result = run.probes.find((p) => p.id === id);
  if (result === undefined) throw new Error(`no ${id} result`);
  return result;
}
const notes = (r: ProbeResult): string[] =>
  r.evidence.flatMap((e) => (e.kind === 'note' ? [e.text] : []));
const show = (r: ProbeResult): string => `${r.verdict}: ${r.reason}\n${notes(r).join('\n')}`;

const labels = (r: ProbeResult): string[] =>
  r.evidence.flatMap((e) => ('label' in e ? [e.label] : []));

/**
 * `decisive`: what the confirmation names. `sent`: an exchange the correct twin must see too (the
 * decisive step was taken there as well, and refused). A correct JWS server refuses every change
 * as the random blob, so its run of refusals may end the plan before `access`: nothing to require.
 */
const CASES: { shape: Shape; probe: string; decisive: RegExp; sent?: RegExp }[] = [
  { shape: 'jws-role', probe: 'state/tamper', decisive: /access → canary, as a JWS with alg none/ },
  {
    shape: 'second-slot',
    probe: 'handle/cross-principal',
    decisive: /add_to_segment\.segmentId/,
    sent: /^B presents A's handle \(slot segmentId\)$/,
  },
  {
    shape: 'field-digest',
    probe: 'state/tamper',
    decisive: /account → canary \(its sha256 in account_sha256 recomputed\)/,
    sent: /^changed requestState: account → canary \(its sha256 in account_sha256 recomputed\)$/,
  },
];

for (const { shape, probe, decisive, sent } of CASES)
  describe(`${shape}: ${probe}`, () => {
    for (const transport of ['http', 'stdio'] as const) {
      it(`confirmed on the flawed server over ${transport}, by the decisive change`, async () => {
        const r = await scan(shape, 'flawed', transport, probe);
        expect(r.verdict, show(r)).toBe('confirmed');
        expect(r.reason).toMatch(decisive);
        for (const [cid, c] of Object.entries(r.controls)) expect(c.held, cid).toBe(true);
      }, 180_000);
      it(`refuted on the correct twin over ${transport}`, async () => {
        const r = await scan(shape, 'correct', transport, probe);
        expect(r.verdict, show(r)).toBe('refuted');
        if (sent !== undefined) expect(labels(r)).toContainEqual(expect.stringMatching(sent));
      }, 180_000);
    }
  });
