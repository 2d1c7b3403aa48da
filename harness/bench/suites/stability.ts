/**
 * Suite "stability": does the same server get the same verdicts every time? Each mode of the
 * first-attempts family and of the workspace twins (`MODES`) is scanned `RUNS` times over HTTP, a
 * fresh server each time (fresh keys, fresh booking codes and states), and per target the suite
 * prints how many verdicts differ from the first run's (goal 0) and the requests one scan sends
 * (HTTP and JSON-RPC exchanges in the report's probes and surface: min, median, max).
 *
 * Nothing is timed: the counts are the measurement, so a busy machine changes nothing but the
 * suite's run time. A target whose verdicts moved lists which probe moved, to what.
 */
import { FIRST_ATTEMPT_TWINS } from '../../twins/first-attempts/index.js';
import { MODES } from '../../../src/fixture/flaws.js';
import { startFixtureHttp } from '../../../src/fixture/http.js';
import { startForeign } from '../../twins/foreign/targets.js';
import { pool } from '../../../src/cli/pool.js';
import { PROBES } from '../../../src/probe/runner/registry.js';
import { runScan } from '../../../src/probe/runner/scan.js';
import type { RunReport } from '../../../src/probe/model/report.js';
import type { BenchSuite, Check } from '../harness.js';

/** Scans per target. */
export const RUNS = 10;
/** Targets scanned at once (each target's runs are sequential). */
const CONCURRENCY = 2;

interface Target {
  readonly label: string;
  scan(): Promise<RunReport>;
}

function targets(): Target[] {
  const workspace = MODES.map((mode): Target => ({
    label: `workspace ${mode}`,
    async scan() {
      const fixture = await startFixtureHttp({ mode });
      try {
        return await runScan({ target: { kind: 'http', url: fixture.url }, probes: PROBES });
      } finally {
        await fixture.close();
      }
    },
  }));
  const firsts = FIRST_ATTEMPT_TWINS.flatMap((twin) =>
    twin.variants.map((variant): Target => ({
      label: `${twin.id} ${variant}`,
      async scan() {
        const started = await startForeign(twin, variant, 'http');
        try {
          return await runScan({ target: started.target, probes: PROBES, ...started.options });
        } finally {
          await started.close();
        }
      },
    })),
  );
  return [...firsts, ...workspace];
}

/** HTTP and JSON-RPC exchanges a scan's report records, discovery included. */
export function requestsOf(report: RunReport): number {
  const evidence = [
    ...(report.surface?.evidence ?? []),
    ...report.probes.flatMap((p) => p.evidence),
  ];
  return evidence.filter((e) => e.kind === 'http' || e.kind === 'jsonrpc').length;
}

const verdictsOf = (report: RunReport): Map<string, string> =>
  new Map(report.probes.map((p) => [p.id, p.verdict]));

interface Outcome {
  readonly label: string;
  /** Verdicts that differ from the first run's, summed over the later runs. */
  readonly differing: number;
  /** Which probe moved to what, e.g. `state/tamper: refuted→errored ×2`. */
  readonly moves: readonly string[];
  readonly requests: readonly number[];
}

async function measure(target: Target): Promise<Outcome> {
  const reports: RunReport[] = [];
  for (let i = 0; i < RUNS; i++) reports.push(await target.scan());
  const first = verdictsOf(reports[0] as RunReport);
  const moves = new Map<string, number>();
  let differing = 0;
  for (const report of reports.slice(1)) {
    for (const [id, verdict] of verdictsOf(report)) {
      const was = first.get(id);
      if (verdict === was) continue;
      differing++;
      const move = `${id}: ${was ?? '-'}→${verdict}`;
      moves.set(move, (moves.get(move) ?? 0) + 1);
    }
  }
  return {
    label: target.label,
    differing,
    moves: [...moves].map(([move, n]) => `${move} ×${n}`),
    requests: reports.map(requestsOf),
  };
}

function spread(values: readonly number[]): string {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted[Math.floor((sorted.length - 1) / 2)] ?? 0;
  return `${sorted[0] ?? 0} / ${mid} / ${sorted[sorted.length - 1] ?? 0}`;
}

/** The stability suite. */
export const stabilitySuite: BenchSuite = {
  name: 'stability',
  summary: `every first-attempts and workspace mode scanned ${RUNS}× over HTTP: verdicts that move, requests per scan`,
  async run() {
    const outcomes = await pool(
      targets().map((t) => () => measure(t)),
      CONCURRENCY,
    );
    const total = outcomes.reduce((sum, o) => sum + o.differing, 0);
    const checks: Check[] = [
      {
        label: 'verdicts differing from the first run, all targets',
        actual: String(total),
        target: '= 0',
        met: total === 0,
      },
    ];
    return {
      tables: [
        {
          title: `verdicts over ${RUNS} scans per target (HTTP, a fresh server each scan)`,
          columns: ['target', 'differing', 'requests min / median / max', 'what moved'],
          rows: outcomes.map((o) => [
            o.label,
            String(o.differing),
            spread(o.requests),
            o.moves.join('; ') || '-',
          ]),
          notes: [
            `differing: verdicts of runs 2..${RUNS} unlike run 1's, summed over every probe`,
            'requests: http and jsonrpc evidence entries in the report (surface and probes)',
          ],
        },
      ],
      checks,
    };
  },
};
