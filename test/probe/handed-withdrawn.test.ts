/**
 * What discovery hands on around a minted handle (a flow's round 1, a handle pair) is taken back
 * when a later call of discovery's may have consumed that handle: in the held-back pass a server
 * with two destructive consumers of a workspace is offered the same one by both, `archive_workspace`
 * (a flow, its round 1 asked and never sent) and then `delete_workspace` (which deletes it at once).
 * The probes of that pass must set the archive flow up on a workspace of their own, never on the
 * deleted one, and so decide as they would without discovery's help.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { PROBES } from '../../src/probe/runner/registry.js';
import { runScan } from '../../src/probe/runner/scan.js';
import type { RunReport } from '../../src/probe/model/report.js';
import { startProbeServer } from '../servers/probe-server.js';

const open: { close(): Promise<void> }[] = [];
afterAll(async () => {
  await Promise.all(open.map((s) => s.close()));
});

const labelsOf = (r: RunReport, id: string): string[] =>
  (r.probes.find((p) => p.id === id)?.evidence ?? []).flatMap((e) =>
    e.kind === 'note' ? [e.text] : 'label' in e ? [e.label] : [],
  );

/**
 * The held-back probes' view of a server whose discovery consumes the archive flow's workspace
 * after asking its round 1: what they decided and what the error oracle's evidence holds.
 */
async function heldBack(
  options: Parameters<typeof startProbeServer>[0],
  consumer: string,
): Promise<{ verdict: (id: string) => string | undefined; oracle: string[] }> {
  const server = await startProbeServer(options);
  open.push(server);
  const r = await runScan({
    target: { kind: 'http', url: server.url },
    probes: PROBES,
    includeDestructive: true,
  });
  const surveyed = (r.surface?.evidence ?? []).flatMap((e) => ('label' in e ? [e.label] : []));
  // Discovery asked the archive flow on a workspace, then called the tool that consumed it.
  const archived = surveyed.indexOf(
    "survey: archive_workspace.workspace_id offered open_workspace's value",
  );
  expect(archived).toBeGreaterThanOrEqual(0);
  expect(surveyed.indexOf(consumer)).toBeGreaterThan(archived);
  return {
    verdict: (id) => r.probes.find((p) => p.id === id)?.verdict,
    oracle: labelsOf(r, 'state/error-oracle'),
  };
}

describe('a round handed on around a handle discovery then consumes', () => {
  it.each([
    [
      'deletes that workspace',
      { deleter: true },
      "survey: delete_workspace.workspace_id offered open_workspace's value",
    ],
    [
      'wipes every workspace (a tool that takes nothing)',
      { wiper: true },
      'survey: wipe_workspaces, last (it takes nothing)',
    ],
  ] as const)(
    'is withdrawn when discovery %s: the held-back probes set the flow up on their own workspace and decide',
    async (_, options, consumer) => {
      const { verdict, oracle } = await heldBack(options, consumer);
      expect(verdict('state/replay-after-completion')).toBe('confirmed');
      expect(verdict('state/error-oracle')).toBe('refuted');
      expect(oracle).toContain(
        'shared archive_workspace: open_workspace → archive_workspace.workspace_id as A',
      );
      expect(oracle).not.toContain(
        'archive_workspace: round 1 as A handed on from discovery, its state unsent',
      );
      // The export flow, which nothing in discovery consumes, still runs on discovery's round 1.
      expect(oracle).toContain(
        'export_workspace: round 1 as A handed on from discovery, its state unsent',
      );
    },
    60_000,
  );
});
