/**
 * The same server, the same verdict, every run: the booking twin mints codes of six random
 * A–Z0–9 characters (some all letters, some all digits) in prose, and discovery finds them by
 * difference, not by what characters were drawn. Five scans over HTTP, each against a fresh
 * process, each confirm the flaw by the same recipe.
 */
import { describe, expect, it } from 'vitest';
import { booking, drawCode } from '../../harness/twins/foreign/missed/booking.js';
import { startForeign } from '../../harness/twins/foreign/targets.js';
import { PROBES } from '../../src/probe/runner/registry.js';
import { runScan } from '../../src/probe/runner/scan.js';

const RUNS = 5;

describe('the booking twin', () => {
  it('draws codes of every kind: all letters, all digits, mixed', () => {
    const kinds = new Set<string>();
    for (let i = 0; i < 300 && kinds.size < 3; i++) {
      const code = drawCode();
      expect(code).toMatch(/^[A-Z0-9]{6}$/);
      kinds.add(/^[A-Z]+$/.test(code) ? 'letters' : /^\d+$/.test(code) ? 'digits' : 'mixed');
    }
    expect(kinds.size).toBe(3);
  });

  it(`is confirmed on every one of ${RUNS} scans over HTTP, by the same recipe`, async () => {
    const verdicts: string[] = [];
    const recipes: string[] = [];
    for (let run = 0; run < RUNS; run++) {
      const started = await startForeign(booking, 'flawed', 'http');
      try {
        const report = await runScan({
          target: started.target,
          probes: PROBES,
          // book_table books: the call plan calls it only on the user's word.
          ...(booking.allowTools === undefined ? {} : { allowTools: booking.allowTools }),
          ...started.options,
        });
        const handle = report.probes.find((p) => p.id === 'handle/cross-principal');
        verdicts.push(`${handle?.verdict}: ${handle?.reason}`);
        recipes.push(...(report.surface?.handles ?? []));
      } finally {
        await started.close();
      }
    }
    expect(verdicts).toEqual(
      Array.from(
        { length: RUNS },
        () =>
          "confirmed: B presented A's handle to booking_status.bookingCode and got A's canary back",
      ),
    );
    expect(recipes).toEqual(
      Array.from({ length: RUNS }, () => 'book_table → booking_status.bookingCode'),
    );
  }, 120_000);
});
