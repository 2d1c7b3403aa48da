/**
 * The proof on servers written unlike the workspace twins: every variant of every foreign twin, on
 * every transport it serves, scanned once with every probe, gives the verdict its `expected` table
 * states. The twins carry other domains, other names, prose handles, nested arguments, resource
 * handles, prompt and resource flows, identities in headers and in the environment, a hand-rolled
 * server without the niceties, and an echo-only server that must never be confirmed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FOREIGN_TWINS } from '../../src/fixture/foreign/index.js';
import { startForeign, type ForeignTarget } from '../../src/fixture/foreign/targets.js';
import { PROBES } from '../../src/probe/registry.js';
import { runScan } from '../../src/probe/scan.js';
import type { RunReport } from '../../src/probe/types.js';

for (const twin of FOREIGN_TWINS) {
  for (const variant of twin.variants) {
    for (const transport of twin.transports) {
      describe(`${twin.id} ${variant} over ${transport}`, () => {
        let report: RunReport;
        let started: ForeignTarget | undefined;

        beforeAll(async () => {
          started = await startForeign(twin, variant, transport);
          report = await runScan({ target: started.target, probes: PROBES, ...started.options });
        }, 60_000);
        afterAll(async () => {
          await started?.close();
        });

        const expected = twin.expected[variant] ?? {};
        for (const [id, verdict] of Object.entries(expected)) {
          it(`${id} is ${verdict}`, () => {
            const r = report.probes.find((p) => p.id === id);
            expect({ verdict: r?.verdict, reason: r?.reason }).toMatchObject({ verdict });
            if (verdict === 'confirmed' || verdict === 'refuted')
              expect(Object.values(r?.controls ?? {}).every((c) => c.held)).toBe(true);
          });
        }
      });
    }
  }
}
