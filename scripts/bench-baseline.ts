/**
 * `npm run bench:baseline`: builds last week's scanner (the commit in harness/bench/baseline-scanner.ts)
 * into `.scratch/baseline-<commit>/`, so `npm run bench -- scan-requests` runs it beside this one in
 * the same run. Needs this checkout's git history and the npm registry; run it once per machine.
 * Nothing of it ships or runs in `npm test`.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { BASELINE_COMMIT, BASELINE_DIR } from '../harness/bench/baseline-scanner.js';

const run = (command: string, args: string[], cwd: string): void => {
  execFileSync(command, args, { cwd, stdio: 'inherit', timeout: 600_000 });
};

if (existsSync(`${BASELINE_DIR}/dist/cli/main.js`)) {
  console.log(`already built: ${BASELINE_DIR}`);
} else {
  rmSync(BASELINE_DIR, { recursive: true, force: true });
  mkdirSync(BASELINE_DIR, { recursive: true });
  const archive = execFileSync('git', ['archive', '--format=tar', BASELINE_COMMIT], {
    maxBuffer: 256 * 1024 * 1024,
  });
  execFileSync('tar', ['-x', '-C', BASELINE_DIR], { input: archive });
  run('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund'], BASELINE_DIR);
  run('npx', ['tsc', '-p', 'tsconfig.build.json'], BASELINE_DIR);
  console.log(`built ${BASELINE_COMMIT} into ${BASELINE_DIR}`);
}
