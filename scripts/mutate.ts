/**
 * `npm run mutate [module…]`: StrykerJS over the modules where a silent regression is a security or
 * accuracy bug, one Stryker run per module so each run is small enough for two cores. Each module is
 * mutated against its own tests only (listed below): the slow end-to-end suites (foreign twins, CLI,
 * stdio spawns) would multiply the run time, and a mutant is only "guarded" when a focused test kills
 * it. Reports land in reports/mutation/<module>/ (gitignored); the scores are printed at the end.
 *
 * Not part of `npm test` or CI: see docs/development.md for when to run it and the recorded scores.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';

/**
 * What each module mutates, and the tests it is measured against. `ignoreStatic`: leave out the
 * mutants that only run while a module is imported (module-level constants). The vitest runner
 * imports our modules once per test process, before any mutant is active, so it cannot measure
 * them: it reports every one as survived after a full run of the module's tests (stryker-js #6209).
 * Mutants that run both at import and inside a test are still measured, against those tests.
 */
export const MODULES = {
  seal: {
    ignoreStatic: true,
    mutate: ['src/seal/**/*.ts'],
    tests: ['test/seal/**/*.test.ts', 'test/bind/handle.test.ts'],
  },
  bind: {
    ignoreStatic: true,
    mutate: ['src/bind/**/*.ts'],
    tests: ['test/bind/**/*.test.ts'],
  },
  ledger: {
    ignoreStatic: true,
    mutate: ['src/ledger/**/*.ts'],
    tests: [
      'test/ledger/ledger.test.ts',
      'test/ledger/arguments.test.ts',
      'test/ledger/memory-map.test.ts',
      'test/ledger/redis-amnesia.test.ts',
      'test/ledger/many-instances.test.ts',
    ],
  },
  sdk: {
    ignoreStatic: true,
    mutate: ['src/sdk/**/*.ts'],
    tests: [
      'test/sdk/guard-fail-closed.test.ts',
      'test/sdk/guard-http.test.ts',
      'test/sdk/guard-options.test.ts',
      'test/sdk/parts.test.ts',
      'test/sdk/protect.test.ts',
    ],
  },
  // The scanner's verdict rules: the runner (controls downgrade, timeouts, errors) …
  runner: {
    mutate: ['src/probe/runner/run.ts'],
    tests: ['test/probe/engine/run.test.ts', 'test/probe/engine/run-rules.test.ts'],
  },
  // … where a value may be carried (the encodings a control canary is searched in) …
  encodings: {
    mutate: ['src/probe/evidence/encodings.ts'],
    tests: ['test/probe/encodings.test.ts'],
  },
  // … and the trials' controls and decisions, against one-probe scans of small servers built for
  // each decision, and the blind-spot scans (one module per trial: each mutant there costs whole
  // scans; the fixture's proof table, minutes per mutant, is left to `npm test`).
  'handle-trial': {
    mutate: ['src/probe/experiments/handle-trial.ts'],
    tests: ['test/probe/handle-trial.test.ts', 'test/probe/blind-spots.test.ts'],
  },
  'replay-trial': {
    mutate: ['src/probe/experiments/replay-trial.ts', 'src/probe/experiments/trial.ts'],
    tests: ['test/probe/replay-trial.test.ts', 'test/probe/blind-spots.test.ts'],
  },
} as const satisfies Record<
  string,
  { mutate: readonly string[]; tests: readonly string[]; ignoreStatic?: boolean }
>;

type ModuleName = keyof typeof MODULES;

interface MutantResult {
  readonly status: string;
}

/** Stryker's mutation score: detected (killed or timed out) over valid mutants. */
function score(reportFile: string): { detected: number; valid: number; survived: number } {
  const report = JSON.parse(readFileSync(reportFile, 'utf8')) as {
    files: Record<string, { mutants: MutantResult[] }>;
  };
  const mutants = Object.values(report.files).flatMap((f) => f.mutants);
  const count = (...statuses: string[]) =>
    mutants.filter((m) => statuses.includes(m.status)).length;
  const detected = count('Killed', 'Timeout');
  const survived = count('Survived', 'NoCoverage');
  return { detected, valid: detected + survived, survived };
}

function main(): number {
  const asked = process.argv.slice(2);
  const unknown = asked.filter((m) => !(m in MODULES));
  if (unknown.length > 0) {
    console.error(
      `unknown module(s): ${unknown.join(', ')}; known: ${Object.keys(MODULES).join(', ')}`,
    );
    return 2;
  }
  const names = (asked.length > 0 ? asked : Object.keys(MODULES)) as ModuleName[];
  const rows: string[] = [];
  let failed = false;
  for (const name of names) {
    const started = Date.now();
    const run = spawnSync(
      process.execPath,
      ['node_modules/@stryker-mutator/core/bin/stryker.js', 'run'],
      {
        stdio: 'inherit',
        env: {
          ...process.env,
          STATEGUARD_MUTATE: name,
          STATEGUARD_MUTATE_FILES: JSON.stringify(MODULES[name].mutate),
          STATEGUARD_MUTATE_TESTS: JSON.stringify(MODULES[name].tests),
          STATEGUARD_MUTATE_IGNORE_STATIC: 'ignoreStatic' in MODULES[name] ? '1' : '',
        },
      },
    );
    const minutes = ((Date.now() - started) / 60_000).toFixed(1);
    const reportFile = `reports/mutation/${name}/mutation.json`;
    if (run.status !== 0 || !existsSync(reportFile)) {
      failed = true;
      rows.push(
        `${name.padEnd(12)} stryker failed (exit ${run.status ?? run.signal}) after ${minutes} min`,
      );
      continue;
    }
    const { detected, valid, survived } = score(reportFile);
    const pct = valid === 0 ? 'n/a' : `${((100 * detected) / valid).toFixed(1)} %`;
    rows.push(
      `${name.padEnd(12)} ${pct.padStart(7)}  ${detected}/${valid} detected, ${survived} survived, ${minutes} min`,
    );
  }
  console.log(`\nmutation score per module (reports in reports/mutation/<module>/index.html)`);
  for (const row of rows) console.log(`  ${row}`);
  return failed ? 1 : 0;
}

process.exitCode = main();
