/**
 * Golden files: one fixed RunReport rendered in every format must match `test/golden/` byte for
 * byte. A change to a reporter shows up as a diff of its golden file; regenerate them on purpose
 * with `UPDATE_GOLDEN=1 npx vitest run test/report/golden.test.ts` and review the diff. That run
 * reports each case as skipped ("updated" or "unchanged"), never as passed: it compared nothing.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CASES, renderGolden } from './golden-cases.js';
import { report } from './sample-report.js';

const GOLDEN = (name: string): string =>
  fileURLToPath(new URL(`../golden/${name}`, import.meta.url));

describe('every reporter against its golden file', () => {
  it.for(CASES)('%s is what the %s reporter renders', ([file, format, options, source], ctx) => {
    const rendered = renderGolden(format, options, source ?? report);
    if (process.env.UPDATE_GOLDEN === '1') {
      const before = existsSync(GOLDEN(file)) ? readFileSync(GOLDEN(file), 'utf8') : undefined;
      if (before !== rendered) writeFileSync(GOLDEN(file), rendered);
      // A file compared with what was just written to it proves nothing: say what happened instead.
      ctx.skip(
        before === rendered ? `UPDATE_GOLDEN: ${file} unchanged` : `UPDATE_GOLDEN: ${file} updated`,
      );
      return;
    }
    expect(rendered).toBe(readFileSync(GOLDEN(file), 'utf8'));
  });
});
