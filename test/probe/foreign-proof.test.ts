/**
 * The proof on servers written unlike the workspace twins: every variant of every foreign twin, on
 * every transport it serves, scanned once with every probe, gives the verdict its `expected` table
 * states. The twins carry other domains, other names, prose handles, nested arguments, resource
 * handles, prompt and resource flows, identities in headers and in the environment, a hand-rolled
 * server without the niceties, and an echo-only server that must never be confirmed.
 *
 * The parallel runner decides as the sequential one does: on the first transport each twin serves,
 * the same variant scanned again with the probes one after another in registry order (`--serial`)
 * gives the same verdict for every probe as the scan above, side by side (the default). The
 * workspace twins are compared in proof-table.test.ts.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { FOREIGN_TWINS, LEGACY_TWINS } from '../../harness/twins/foreign/index.js';
import type { RunReport } from '../../src/probe/model/report.js';
import { itHasVerdict, twinScans, verdicts } from '../helpers/twin-scans.js';

/**
 * Where each twin hides what discovery must find, and the recipe it must find it by: one discovery
 * form per twin, proven on the flawed variant (confirmed) and on the fixed one (refuted) by the
 * verdicts below.
 */
const FORMS: Record<
  string,
  { form: string; handle?: string; flow?: string; variants?: readonly string[] }
> = {
  travel: {
    form: 'a handle deep in nested structuredContent, taken by a nested camelCase argument',
    handle: 'bookTrip → getItinerary.lookup.bookingCode',
  },
  drafts: {
    form: 'a handle only in prose, taken by `which`',
    handle: 'startDraft → reviewDraft.which',
  },
  snippets: {
    form: 'a resource_link handle read back by URI',
    handle: 'saveSnippet → resources/read',
  },
  'recipes-prompt': {
    form: 'a multi-round prompts/get',
    flow: 'prompt plan_menu',
    variants: ['flawed', 'fixed', 'flawed-prompt-only'],
  },
  'late-owner': {
    form: 'a multi-round consumer naming the owner only at completion',
    handle: 'openCase → escalateCase.caseNumber',
  },
  notebook: {
    form: 'a lookup that answers a miss as a success, under a parameter named `name`',
    handle: 'jot → peek.name',
  },
  tickets: {
    form: 'an integer id, sent back as a number',
    handle: 'file_ticket → show_ticket.id',
  },
  'ledger-raw': {
    form: 'JSON in text from a hand-rolled server without the niceties',
    handle: 'new_ledger → ledger_balance.ledger',
  },
  'cart-meta': {
    form: "a handle only in the result's _meta",
    handle: 'open_cart → view_cart.cart',
  },
  segments: {
    form: 'a consumer of two minted values, tried slot by slot',
    handle: 'create_contact → add_to_segment.contactId (own segmentId from create_segment)',
  },
  catalog: {
    form: 'a handle pair last among 35 tools over two tools/list pages',
    handle: 'issue_voucher → show_voucher.voucher',
  },
  booking: {
    form: 'random six-character codes in prose, whatever characters they drew',
    handle: 'book_table → booking_status.bookingCode',
  },
};

const scans = twinScans(4);
const TWINS = [...FOREIGN_TWINS, ...LEGACY_TWINS];

beforeAll(() =>
  scans.startAll(TWINS, (twin, _variant, transport) => transport === twin.transports[0]),
);

for (const twin of TWINS) {
  for (const variant of twin.variants) {
    for (const transport of twin.transports) {
      describe(`${twin.id} ${variant} over ${transport}`, () => {
        let report: RunReport;

        beforeAll(async () => {
          report = await scans.report(twin, variant, transport);
        }, 120_000);

        const form = FORMS[twin.id];
        if (form !== undefined && (form.variants ?? [variant]).includes(variant)) {
          it(`discovery finds ${form.form}`, () => {
            const found = report.surface;
            expect(form.handle ?? form.flow).toBeDefined();
            if (form.handle !== undefined)
              expect(found?.handles.some((h) => h.startsWith(form.handle ?? ''))).toBe(true);
            if (form.flow !== undefined) expect(found?.flows).toContain(form.flow);
          });
        }
        if (twin.id === 'recipes-prompt' && variant !== 'flawed-prompt-only') {
          it('discovery finds a multi-round resources/read', () => {
            const flows = report.surface?.flows ?? [];
            expect(flows.some((f) => f.startsWith('resources/read pantry://'))).toBe(true);
          });
        }
        if (twin.id === 'ledger-raw') {
          it('scans the stateless server without the niceties, its deviations noted', () => {
            expect(report.protocol.era).toBe('modern');
            const deviations = report.protocol.deviations ?? [];
            expect(deviations.some((d) => d.startsWith('no server/discover'))).toBe(true);
            expect(deviations.some((d) => d.startsWith('initialize refused'))).toBe(true);
            expect(deviations).toContain('tools/list result without resultType');
          });
        }

        if (transport === twin.transports[0])
          it('one probe after another (--serial): the same verdicts', async () => {
            const serial = await scans.report(twin, variant, transport, 'serial');
            expect(verdicts(report)).toEqual(verdicts(serial));
          }, 240_000);

        const expected = twin.expected[variant] ?? {};
        it('has expected verdicts to check', () =>
          expect(Object.keys(expected).length).toBeGreaterThan(0));
        for (const [id, verdict] of Object.entries(expected))
          itHasVerdict(() => report, id, verdict);
      });
    }
  }
}
