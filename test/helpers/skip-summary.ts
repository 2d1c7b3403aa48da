/**
 * A vitest reporter that ends the run with one line when tests were skipped, and why: a skipped
 * suite scrolls by above the summary, and "24 skipped" alone does not say whether it matters.
 */
import { relative } from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';
import { CHROMIUM_SKIP_REASON } from './chromium.js';
import { REDIS_SKIP_REASON } from './redis.js';

/** Prints `stateguard: N tests skipped (files): reason` after the default summary. */
export default class SkipSummary implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    let skipped = 0;
    const files: string[] = [];
    for (const module of modules) {
      let here = 0;
      for (const test of module.children.allTests()) if (test.result().state === 'skipped') here++;
      if (here === 0) continue;
      skipped += here;
      files.push(relative(process.cwd(), module.moduleId));
    }
    if (skipped === 0) return;
    const shown = files.length > 3 ? `${files.slice(0, 3).join(', ')}, …` : files.join(', ');
    const why =
      REDIS_SKIP_REASON !== undefined
        ? `redis-server is not on the PATH (install it to run the Redis suites: apt-get install redis-server)`
        : CHROMIUM_SKIP_REASON !== undefined
          ? `the browser checks need Chromium: ${CHROMIUM_SKIP_REASON}`
          : 'skipped by a filter or a platform condition (see [skipped] lines above)';
    process.stdout.write(
      `\nstateguard: ${skipped} test${skipped === 1 ? '' : 's'} skipped in ${files.length} file${files.length === 1 ? '' : 's'} (${shown}): ${why}\n`,
    );
  }
}
