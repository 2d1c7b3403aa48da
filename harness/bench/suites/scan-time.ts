/**
 * Suite "scan-time": what discovery by value costs. Whole scans over HTTP of the workspace twins
 * (`flawed`, `fixed`) and of every foreign twin's `flawed` and `fixed` variants, interleaved round
 * by round, reported per target; then the foreign family's median per-target scan time against the
 * workspace twins' (target: at most 1.5×), and the wall time of `npm run demo` (every fixture, both
 * transports, both families).
 *
 * Verdicts are checked against each fixture's expectation on every scan: a fast scan that decides
 * wrong is no answer, and the suite throws.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expectedFor } from '../../../src/fixture/flaws.js';
import { startFixtureHttp } from '../../../src/fixture/http.js';
import { FOREIGN_TWINS } from '../../twins/foreign/index.js';
import { startForeign } from '../../twins/foreign/targets.js';
import { PROBES } from '../../../src/probe/runner/registry.js';
import { runScan } from '../../../src/probe/runner/scan.js';
import type { RunReport } from '../../../src/probe/model/report.js';
import { formatRatio, type BenchSuite, type Budget } from '../harness.js';

const ROUNDS = 5;
const DEMO_RUNS = 3;
const RATIO_TARGET = 1.5;

interface Target {
  readonly label: string;
  readonly family: 'workspace' | 'foreign';
  readonly expected: Readonly<Record<string, string>>;
  scan(): Promise<RunReport>;
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)] ?? NaN;
}

function targets(): Target[] {
  const workspace = (['flawed', 'fixed'] as const).map((mode): Target => ({
    label: `workspace ${mode}`,
    family: 'workspace',
    expected: expectedFor(mode, 'http'),
    async scan() {
      const fixture = await startFixtureHttp({ mode });
      try {
        return await runScan({ target: { kind: 'http', url: fixture.url }, probes: PROBES });
      } finally {
        await fixture.close();
      }
    },
  }));
  const foreign = FOREIGN_TWINS.flatMap((twin) =>
    twin.variants
      .filter((v) => ['flawed', 'fixed'].includes(v) || twin.variants.length === 3)
      .slice(0, 2)
      .map((variant): Target => ({
        label: `${twin.id} ${variant}`,
        family: 'foreign',
        expected: twin.expected[variant] ?? {},
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
  return [...workspace, ...foreign];
}

/** One run of the built demo, in a child process: its wall time in ms. */
function runDemo(): Promise<number> {
  const demo = fileURLToPath(new URL('../../demo/main.js', import.meta.url));
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [demo], { stdio: ['ignore', 'ignore', 'ignore'] });
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.once('error', reject);
    child.once('exit', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(performance.now() - started);
      else reject(new Error(`the demo exited ${code}`));
    });
  });
}

/** The scan-time suite. */
export const scanTimeSuite: BenchSuite = {
  name: 'scan-time',
  summary: 'whole scans of the foreign twins vs the workspace twins, and the demo',
  async run(_budget: Budget) {
    const list = targets();
    const walls = list.map(() => [] as number[]);
    const calls = list.map(() => 0);
    const scan = async (i: number): Promise<number> => {
      const t = list[i] as Target;
      const started = performance.now();
      const report = await t.scan();
      const wall = performance.now() - started;
      for (const [id, want] of Object.entries(t.expected)) {
        const got = report.probes.find((p) => p.id === id)?.verdict;
        if (got !== want) throw new Error(`${t.label}: ${id} was ${got}, expected ${want}`);
      }
      const sent = [
        ...(report.surface?.evidence ?? []),
        ...report.probes.flatMap((p) => p.evidence),
      ];
      calls[i] = sent.filter((e) => e.kind === 'http' || e.kind === 'jsonrpc').length;
      return wall;
    };
    for (const i of list.keys()) await scan(i); // warm-up
    const order = [...list.keys()];
    for (let round = 0; round < ROUNDS; round++) {
      for (const i of round % 2 === 0 ? order : [...order].reverse())
        (walls[i] as number[]).push(await scan(i));
    }
    const perTarget = walls.map(median);
    const family = (f: Target['family']) =>
      median(perTarget.filter((_, i) => (list[i] as Target).family === f));
    const ratio = family('foreign') / family('workspace');
    const demoRuns: number[] = [];
    for (let r = 0; r < DEMO_RUNS; r++) demoRuns.push(await runDemo());
    const demo = median(demoRuns);
    return {
      tables: [
        {
          title: `whole HTTP scans, every probe (median of ${ROUNDS} interleaved rounds)`,
          columns: ['target', 'family', 'scan ms', 'requests'],
          rows: list.map((t, i) => [
            t.label,
            t.family,
            (perTarget[i] as number).toFixed(0),
            String(calls[i]),
          ]),
          notes: [
            'scan ms: one whole scan (opening, discovery, four probes) against the target started',
            '  on 127.0.0.1; requests: every exchange the report records (discovery and probes).',
            `per-target median: foreign ${family('foreign').toFixed(0)} ms, workspace ${family('workspace').toFixed(0)} ms`,
            `npm run demo (${DEMO_RUNS} runs, median): ${(demo / 1000).toFixed(1)} s wall`,
          ],
        },
      ],
      checks: [
        {
          label: 'per-target scan time, foreign twins / workspace twins',
          actual: formatRatio(ratio),
          target: `≤ ${formatRatio(RATIO_TARGET)}`,
          met: ratio <= RATIO_TARGET,
        },
      ],
    };
  },
};
