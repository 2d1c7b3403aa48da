/**
 * `npm run bench`: runs the registered suites and prints their tables and target checks.
 *
 *     node --expose-gc dist-harness/harness/bench/main.js [suite-name …]
 *
 * Timings never gate a test; they live here, as ratios against a baseline measured in the same run.
 * Exit code 0 whether or not a target was met (a busy machine is not a regression); 2 on bad usage.
 */
import {
  COLLECTS_GARBAGE,
  DEFAULT_BUDGET,
  renderChecks,
  renderTable,
  type BenchSuite,
} from './harness.js';
import { complexitySuite } from './suites/complexity.js';
import { configScanSuite } from './suites/config-scan.js';
import { handlesSuite } from './suites/handles.js';
import { httpScanSuite } from './suites/http-scan.js';
import { mcpRoundTripSuite } from './suites/mcp-roundtrip.js';
import { parallelScanSuite } from './suites/parallel-scan.js';
import { redisLedgerSuite } from './suites/redis-ledger.js';
import { requestStateSuite } from './suites/request-state.js';
import { scanRequestsSuite } from './suites/scan-requests.js';
import { scanTimeSuite } from './suites/scan-time.js';
import { stabilitySuite } from './suites/stability.js';
import { watchProxySuite } from './suites/watch-proxy.js';

/** Every suite, in run order. Add new suites here. */
const SUITES: readonly BenchSuite[] = [
  requestStateSuite,
  handlesSuite,
  redisLedgerSuite,
  httpScanSuite,
  mcpRoundTripSuite,
  scanTimeSuite,
  scanRequestsSuite,
  parallelScanSuite,
  configScanSuite,
  stabilitySuite,
  complexitySuite,
  watchProxySuite,
];

async function main(argv: readonly string[]): Promise<number> {
  const unknown = argv.filter((name) => !SUITES.some((s) => s.name === name));
  if (unknown.length > 0) {
    console.error(`unknown suite(s): ${unknown.join(', ')}`);
    console.error(`available: ${SUITES.map((s) => s.name).join(', ')}`);
    return 2;
  }
  const selected = argv.length > 0 ? SUITES.filter((s) => argv.includes(s.name)) : SUITES;
  const gc = COLLECTS_GARBAGE ? 'heap collected before every timed run' : 'run with --expose-gc';
  console.log(`node ${process.version} · ${process.platform}/${process.arch} · ${gc}`);
  for (const suite of selected) {
    const started = Date.now();
    console.log(`\n== ${suite.name}: ${suite.summary}\n`);
    const result = await suite.run(DEFAULT_BUDGET);
    for (const table of result.tables) console.log(`${renderTable(table)}\n`);
    if (result.checks.length > 0) console.log(renderChecks(result.checks));
    console.log(`\n(${suite.name} took ${((Date.now() - started) / 1000).toFixed(1)} s)`);
  }
  return 0;
}

process.exitCode = await main(process.argv.slice(2));
