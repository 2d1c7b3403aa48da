/**
 * The proof on first attempts: servers written the way SDK examples and tutorials show a first
 * multi-round tool (harness/twins/first-attempts). Every variant, on both transports, scanned once with
 * every probe, gives the verdict its `expected` table states: each flaw confirmed by the probes its
 * definition names, each control (a state never read, a request echoed, a state printed, the sealed
 * twin) never confirmed, and the Origin check refuted over HTTP.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { FIRST_ATTEMPT_TWINS } from '../../harness/twins/first-attempts/index.js';
import type { RunReport } from '../../src/probe/model/report.js';
import { itHasVerdict, twinScans } from '../helpers/twin-scans.js';

/** What discovery must find in each variant: the multi-round tool, or the minting pair. */
const FOUND: Record<string, { flow?: string; handle?: string }> = {
  'json-user': { flow: 'plan_trip' },
  'json-user-checked': { flow: 'plan_trip' },
  'json-amount': { flow: 'quote_supplies' },
  'json-step': { flow: 'review_post' },
  'base64-json': { flow: 'plan_trip' },
  'json-digest': { flow: 'plan_trip' },
  'user-preferred': { flow: 'plan_trip' },
  'prose-codes': { handle: 'book_table → booking_status.reference' },
  'never-read': { flow: 'plan_trip' },
  'echo-request': { flow: 'inspect_request' },
  'print-state': { flow: 'preview_trip' },
  sealed: { flow: 'plan_trip', handle: 'book_table → booking_status.reference' },
};

const scans = twinScans(4);

beforeAll(() => scans.startAll(FIRST_ATTEMPT_TWINS));

for (const twin of FIRST_ATTEMPT_TWINS) {
  for (const variant of twin.variants) {
    for (const transport of twin.transports) {
      describe(`${twin.id} ${variant} over ${transport}`, () => {
        let report: RunReport;

        beforeAll(async () => {
          report = await scans.report(twin, variant, transport);
        }, 180_000);

        const found = FOUND[variant] ?? {};
        if (found.flow !== undefined)
          it(`discovery finds the flow ${found.flow}`, () => {
            expect(report.surface?.flows).toContain(found.flow);
          });
        if (found.handle !== undefined)
          it(`discovery finds the handle ${found.handle}`, () => {
            const handles = report.surface?.handles ?? [];
            expect(handles.some((h) => h.startsWith(found.handle ?? ''))).toBe(true);
          });

        for (const [id, verdict] of Object.entries(twin.expected[variant] ?? {}))
          itHasVerdict(() => report, id, verdict);
        if (transport === 'http') itHasVerdict(() => report, 'transport/origin', 'refuted');
      });
    }
  }
}
