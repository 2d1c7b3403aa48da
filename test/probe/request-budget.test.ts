/**
 * What a whole scan of the flawed fixture sends (`--include-destructive`, every probe), counted on
 * the wire by a loopback counter in front of the fixture and as the report counts it: the two
 * agree, the report's parts add up to its total, and the total stays within the budget this scan
 * reached by setting each flow up once for every probe, and by sending once what several probes
 * measured alike on it (issue 36; 91 over stdio and 99 over HTTP before the setup was shared, 78
 * and 82 before the noise, the random state, B's replay on A's call, A's other request and the
 * tasks' server/discover were; 71 and 75 before discovery handed its unsent round 1s on (those without a handle or a canary),
 * `state/replay-after-completion` replayed the shared untouched run and the held-back pass set its
 * flows up once too; 69 and 73 before the opening stopped asking the lists a server's capabilities
 * do not declare, `state/error-oracle` sent its noise control only where two refusals differ, and
 * it shared `state/replay-request`'s mismatch; 60 and 64 before the handle probe took discovery's
 * first mint and read as A's, and discovery handed on its round 1s around a handle or a canary too;
 * 58 over HTTP before `transport/origin` read the opening's request as A instead of sending it
 * again; the goal, 45, is not reached yet).
 */
import { describe, expect, it } from 'vitest';
import { countedScan, unexpected } from '../../harness/bench/suites/scan-requests.js';

const BUDGET = { stdio: 54, http: 57 } as const;

describe.each(['stdio', 'http'] as const)(
  'a whole scan of the flawed fixture over %s',
  (transport) => {
    it('sends within its budget, counted alike on the wire and in the report', async () => {
      const { report, wire } = await countedScan('flawed', transport);
      expect(unexpected(report, 'flawed', transport)).toEqual([]);
      const r = report.requests!;
      expect(report.shed).toBeUndefined();
      expect(wire.requests).toBe(r.total);
      const own = report.probes.reduce((sum, p) => sum + (p.requests ?? 0), 0);
      expect(r.probes).toBe(own);
      expect(r.opening + r.survey + (r.shared ?? 0) + r.probes).toBe(r.total);
      expect(r.shared).toBeGreaterThan(0);
      expect(r.total).toBeLessThanOrEqual(BUDGET[transport]);
      // Its server/discover declares tools alone: the lists of prompts and resources are not asked
      // (test/fixture/foreign/recipes-prompt.test.ts scans a twin that declares prompts).
      expect(wire.byMethod['tools/list']).toBeGreaterThan(0);
      for (const list of ['prompts/list', 'resources/list', 'resources/templates/list'])
        expect(wire.byMethod[list], list).toBeUndefined();
      // Every probe that read the shared flow cites the exchanges that set it up.
      for (const id of ['state/tamper', 'state/replay-principal', 'state/replay-request']) {
        const notes = report.probes
          .find((p) => p.id === id)!
          .evidence.flatMap((e) => (e.kind === 'note' ? [e.text] : []));
        expect(notes.some((n) => n.startsWith('shared setup (export_workspace'))).toBe(true);
      }
    }, 60_000);
  },
);

// A legacy server: each identity opens its own session (over HTTP, B's `initialize` goes out on
// its first request), and that handshake is a request on the wire like any other.
describe.each([
  ['legacy', 'http'],
  ['legacy', 'stdio'],
  ['legacy-unbound', 'http'],
] as const)('a whole scan of the %s fixture over %s', (mode, transport) => {
  it("counts alike on the wire and in the report, each identity's handshake included", async () => {
    const { report, wire } = await countedScan(mode, transport);
    expect(unexpected(report, mode, transport)).toEqual([]);
    const r = report.requests!;
    expect(wire.requests).toBe(r.total);
    const own = report.probes.reduce((sum, p) => sum + (p.requests ?? 0), 0);
    expect(r.opening + r.survey + (r.shared ?? 0) + own).toBe(r.total);
  }, 60_000);
});
