/**
 * Scanning fixture twins (the foreign contract, `harness/twins/foreign/twin.ts`) for the proof tests:
 * every variant on every transport, a few scans at a time (they wait on I/O far more than on the
 * CPU), and the one assertion a proof makes of each expected verdict.
 */
import { expect, it } from 'vitest';
import { limit } from './limit.js';
import { startForeign } from '../../harness/twins/foreign/targets.js';
import type { ForeignTwin } from '../../harness/twins/foreign/twin.js';
import type { Probe } from '../../src/probe/model/probe.js';
import { findProbe, PROBES } from '../../src/probe/runner/registry.js';
import { runScan } from '../../src/probe/runner/scan.js';
import type { Evidence } from '../../src/probe/model/evidence.js';
import type { ProbeResult, RunReport } from '../../src/probe/model/report.js';
import type { TransportKind } from '../../src/probe/model/target.js';
import type { Verdict } from '../../src/probe/model/probe.js';

/**
 * One scan of `twin` in `variant` over `transport`, with every probe unless `probes` names some; the
 * twin is stopped after.
 */
export async function scanTwin(
  twin: ForeignTwin,
  variant: string,
  transport: TransportKind,
  options: {
    readonly includeDestructive?: boolean;
    readonly probes?: readonly Probe[];
    /** One probe after another in registry order (`--serial`) instead of side by side. */
    readonly serial?: boolean;
  } = {},
): Promise<RunReport> {
  const { probes = PROBES, ...word } = options;
  const started = await startForeign(twin, variant, transport);
  try {
    // A proof is about verdicts, not speed: several scans share two busy cores here, and the
    // default 5 s per request and 30 s deadline (with its shares for the survey and each probe)
    // would let the load decide: a slow answer is no decision, and the probe ends errored.
    return await runScan({
      target: started.target,
      probes,
      timeoutMs: 30_000,
      deadlineMs: 120_000,
      ...(twin.allowTools === undefined ? {} : { allowTools: twin.allowTools }),
      ...word,
      ...started.options,
    });
  } finally {
    await started.close();
  }
}

/** Which plan a scan runs: probes side by side (the default), or one after another (`--serial`). */
export type Plan = 'parallel' | 'serial';

/** The key of one scan in a {@link TwinScans}. */
export const scanKey = (
  twin: ForeignTwin,
  variant: string,
  transport: TransportKind,
  plan: Plan = 'parallel',
): string => `${twin.id} ${variant} ${transport}${plan === 'serial' ? ' serial' : ''}`;

/** Every scan of some twins, started at most `concurrency` at a time. */
export interface TwinScans {
  /**
   * Starts (or queues) every variant × transport of `twins`, and a `--serial` scan too of those
   * `serial` picks. Call it in a `beforeAll`.
   */
  startAll(
    twins: readonly ForeignTwin[],
    serial?: (twin: ForeignTwin, variant: string, transport: TransportKind) => boolean,
  ): void;
  /** The report of one scan started by {@link startAll}. */
  report(
    twin: ForeignTwin,
    variant: string,
    transport: TransportKind,
    plan?: Plan,
  ): Promise<RunReport>;
}

/** A scan queue: `concurrency` scans run at once, the rest wait their turn. */
export function twinScans(concurrency = 4): TwinScans {
  const scans = new Map<string, Promise<RunReport>>();
  const run = limit(concurrency);
  // The describe that reads a scan reports its failure; `limit` keeps an unread one handled.
  const schedule = (key: string, scan: () => Promise<RunReport>): void => {
    if (!scans.has(key)) scans.set(key, run(scan));
  };
  return {
    startAll(twins, serial = () => false) {
      // Each serial scan queued right behind its parallel one: the tests read them in that order.
      for (const twin of twins)
        for (const variant of twin.variants)
          for (const transport of twin.transports) {
            schedule(scanKey(twin, variant, transport), () => scanTwin(twin, variant, transport));
            if (serial(twin, variant, transport))
              schedule(scanKey(twin, variant, transport, 'serial'), () =>
                scanTwin(twin, variant, transport, { serial: true }),
              );
          }
    },
    report(twin, variant, transport, plan = 'parallel') {
      const key = scanKey(twin, variant, transport, plan);
      const scan = scans.get(key);
      if (scan === undefined) throw new Error(`${key} not started`);
      return scan;
    },
  };
}

/** Every probe's verdict, by id: what a scan decided, to compare two plans of it. */
export const verdicts = (report: RunReport): Record<string, string> =>
  Object.fromEntries(report.probes.map((p) => [p.id, p.verdict]));

/**
 * `it(<id> is <verdict>)`: the report's verdict for probe `id`, with its reason shown on a
 * mismatch; a confirmed or refuted verdict must also have every control held.
 */
export function itHasVerdict(report: () => RunReport, id: string, verdict: Verdict): void {
  it(`${id} is ${verdict}`, () => {
    const r = report().probes.find((p) => p.id === id);
    expect(r?.verdict, r?.reason).toBe(verdict);
    if (verdict === 'confirmed' || verdict === 'refuted') {
      expect(Object.keys(r?.controls ?? {}).length).toBeGreaterThan(0);
      expect(Object.values(r?.controls ?? {}).every((c) => c.held)).toBe(true);
    }
  });
}

/** The registered probes with these ids (a test about a few probes scans with those alone). */
export function probesNamed(ids: readonly string[]): Probe[] {
  return ids.map((id) => {
    const p = findProbe(id);
    if (p === undefined) throw new Error(`${id} is not registered`);
    return p;
  });
}

/** A JSON-RPC request as a probe's evidence recorded it. */
export interface SentRequest {
  readonly method: string;
  readonly params: Record<string, unknown>;
}

/** Every JSON-RPC request a probe sent, as sent (HTTP or stdio evidence). */
export function requestsSent(result: ProbeResult | undefined): SentRequest[] {
  const body = (e: Evidence): unknown =>
    e.kind === 'http' ? e.request.body : e.kind === 'jsonrpc' ? e.sent : undefined;
  return (result?.evidence ?? [])
    .map(body)
    .filter(
      (m): m is SentRequest => typeof (m as { method?: unknown } | undefined)?.method === 'string',
    );
}
