/**
 * The parallel runner decides as the sequential one does: every fixture mode of both families,
 * scanned with the probes side by side (the default) and one after another in registry order
 * (`--serial`), gives the same verdict for every probe. The workspace twins run on both transports
 * (a stdio server reads one line at a time, so probes side by side queue on it); each foreign twin
 * on the first transport it serves.
 */
import { describe, expect, it } from 'vitest';
import { limit } from '../helpers/limit.js';
import { MODES } from '../../src/fixture/flaws.js';
import { startFixtureHttp } from '../../src/fixture/http.js';
import { fixtureStdioCommand } from '../../harness/fixture/stdio-command.js';
import { FOREIGN_TWINS, LEGACY_TWINS } from '../../harness/twins/foreign/index.js';
import { startForeign } from '../../harness/twins/foreign/targets.js';
import { PROBES } from '../../src/probe/registry.js';
import { runScan, type ScanConfig } from '../../src/probe/scan.js';
import type { RunReport, TransportKind } from '../../src/probe/types.js';

/** One target to scan twice: a config without `serial`, and how to stop what it started. */
interface Case {
  readonly name: string;
  start(): Promise<{ config: ScanConfig; close(): Promise<void> }>;
}

// As in the proof tests: several scans share two busy cores, so the limits are generous enough
// that load never decides a verdict.
const LIMITS = { timeoutMs: 30_000, deadlineMs: 120_000 } as const;

const workspace: Case[] = MODES.flatMap((mode) =>
  (['http', 'stdio'] as const satisfies readonly TransportKind[]).map((transport): Case => ({
    name: `workspace ${mode} over ${transport}`,
    async start() {
      if (transport === 'stdio') {
        const { command, args } = fixtureStdioCommand(mode);
        const target = { kind: 'stdio', command, args } as const;
        return { config: { target, probes: PROBES, ...LIMITS }, close: async () => undefined };
      }
      const fixture = await startFixtureHttp({ mode });
      const target = { kind: 'http', url: fixture.url } as const;
      return { config: { target, probes: PROBES, ...LIMITS }, close: () => fixture.close() };
    },
  })),
);

const foreign: Case[] = [...FOREIGN_TWINS, ...LEGACY_TWINS].flatMap((twin) =>
  twin.variants.map((variant): Case => ({
    name: `${twin.id} ${variant} over ${twin.transports[0]}`,
    async start() {
      const started = await startForeign(twin, variant, twin.transports[0]!);
      return {
        config: { target: started.target, probes: PROBES, ...LIMITS, ...started.options },
        close: () => started.close(),
      };
    },
  })),
);

/** Every probe's verdict, by id. */
const verdicts = (report: RunReport): Record<string, string> =>
  Object.fromEntries(report.probes.map((p) => [p.id, p.verdict]));

async function scanBoth(c: Case): Promise<{ serial: RunReport; parallel: RunReport }> {
  const scanOnce = async (serial: boolean): Promise<RunReport> => {
    const started = await c.start();
    try {
      return await runScan({ ...started.config, serial });
    } finally {
      await started.close();
    }
  };
  // Alternate which plan goes first, so neither always meets a freshly started server.
  const serialFirst = c.name.length % 2 === 0;
  const first = await scanOnce(serialFirst);
  const second = await scanOnce(!serialFirst);
  return serialFirst ? { serial: first, parallel: second } : { serial: second, parallel: first };
}

/** Runs `cases` at most `width` at a time; each result keyed by name. */
function runAll(
  cases: readonly Case[],
  width: number,
): Map<string, Promise<{ serial: RunReport; parallel: RunReport }>> {
  const run = limit(width);
  return new Map(cases.map((c) => [c.name, run(() => scanBoth(c))]));
}

describe('side by side and one after another', () => {
  const cases = [...workspace, ...foreign];
  let scans: ReturnType<typeof runAll> | undefined;
  const started = (): NonNullable<typeof scans> => (scans ??= runAll(cases, 3));

  for (const c of cases) {
    it(`${c.name}: the same verdicts`, async () => {
      const { serial, parallel } = await started().get(c.name)!;
      expect(verdicts(parallel)).toEqual(verdicts(serial));
    }, 240_000);
  }
});
