/**
 * One measured scan of the complexity suite, in a process of its own so that one size's heap and
 * CPU never weigh on another's:
 *
 *     node dist-harness/harness/bench/complexity-scan.js --shape <shape> --bytes <n> --deadline <ms>
 *
 * Scans the complexity server of that shape and size over stdio with every probe (the server is a
 * child of this process, so its own CPU is not counted), renders the report in every format, and
 * prints one JSON line: this process's CPU time for the scan and for the rendering, the wall time
 * from the scan's start to the last rendered byte, and the process's peak resident memory.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { cpuUsage, resourceUsage } from 'node:process';
import { parseArgs } from 'node:util';
import {
  COMPLEXITY_SHAPES,
  complexityStdioCommand,
  type ComplexityShape,
} from '../twins/complexity/index.js';
import { PROBES } from '../../src/probe/runner/registry.js';
import { runScan } from '../../src/probe/runner/scan.js';
import { REPORTERS } from '../../src/report/index.js';
import type { Reporter } from '../../src/report/types.js';

/** What one measured scan printed. */
export interface ComplexityRun {
  readonly shape: ComplexityShape;
  readonly bytes: number;
  /** CPU time (user + system) of the scan, ms. */
  readonly scanCpuMs: number;
  /** CPU time of rendering every format, ms. */
  readonly renderCpuMs: number;
  /** Scan start to the end of the scan (the deadline's clock), ms. */
  readonly scanWallMs: number;
  /** Scan start to the last rendered format, ms. */
  readonly wallMs: number;
  /**
   * Longest the event loop was held during the scan, ms: how late a timer (the deadline's) could
   * fire, and how long another server's scan in the same process would wait.
   */
  readonly maxBlockMs: number;
  /** Peak resident set of this process, KiB. */
  readonly maxRssKiB: number;
  /** Verdict per probe id. */
  readonly verdicts: Readonly<Record<string, string>>;
  /** Characters of every rendered format together. */
  readonly renderedChars: number;
}

/** Largest answer the scans read: above the top size, so the shapes are read, not refused. */
export const COMPLEXITY_MAX_ANSWER_BYTES = 8 * 1024 * 1024;

const cpuMs = (since: NodeJS.CpuUsage): number => {
  const { user, system } = cpuUsage(since);
  return (user + system) / 1000;
};

async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      shape: { type: 'string' },
      bytes: { type: 'string' },
      deadline: { type: 'string' },
    },
    strict: true,
  });
  const shape = values.shape as ComplexityShape;
  const bytes = Number(values.bytes);
  const deadlineMs = Number(values.deadline ?? 30_000);
  if (!COMPLEXITY_SHAPES.includes(shape) || !(bytes > 0) || !(deadlineMs > 0)) {
    process.stderr.write('usage: --shape <shape> --bytes <n> [--deadline <ms>]\n');
    return 2;
  }
  const { command, args } = complexityStdioCommand(shape, bytes);
  const lag = monitorEventLoopDelay({ resolution: 10 });
  lag.enable();
  const started = performance.now();
  const cpu = cpuUsage();
  const report = await runScan({
    target: { kind: 'stdio', command, args },
    probes: PROBES,
    deadlineMs,
    maxAnswerBytes: COMPLEXITY_MAX_ANSWER_BYTES,
  });
  const scanCpuMs = cpuMs(cpu);
  const scanWallMs = performance.now() - started;
  lag.disable();
  const renderCpu = cpuUsage();
  let renderedChars = 0;
  for (const reporter of Object.values(REPORTERS) as Reporter[])
    renderedChars += reporter.render(report, { color: false, evidence: 'full', all: true }).length;
  const run: ComplexityRun = {
    shape,
    bytes,
    scanCpuMs,
    renderCpuMs: cpuMs(renderCpu),
    scanWallMs,
    wallMs: performance.now() - started,
    maxBlockMs: lag.max / 1e6,
    maxRssKiB: resourceUsage().maxRSS,
    verdicts: Object.fromEntries(report.probes.map((p) => [p.id, p.verdict])),
    renderedChars,
  };
  process.stdout.write(`${JSON.stringify(run)}\n`);
  return 0;
}

// Only when run as a script: the suite imports the types and constants above.
if (process.argv[1]?.endsWith('complexity-scan.js')) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`complexity-scan failed: ${(error as Error).stack}\n`);
      process.exitCode = 1;
    },
  );
}
