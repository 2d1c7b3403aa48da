/**
 * Serves one first-attempt server over stdio:
 *
 *     node --import tsx harness/twins/first-attempts/main.ts --variant <v>
 *
 * Writes `[fixture] ready` to stderr once it reads stdin; exits when stdin closes.
 */
import { parseArgs } from 'node:util';
import { FIRST_ATTEMPT_VARIANTS, firstAttempts } from './index.js';

async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: { variant: { type: 'string' } },
    strict: true,
  });
  const variant = values.variant ?? '';
  if (!(FIRST_ATTEMPT_VARIANTS as readonly string[]).includes(variant)) {
    process.stderr.write(`usage: --variant <${FIRST_ATTEMPT_VARIANTS.join('|')}>\n`);
    return 2;
  }
  await firstAttempts.serveStdio(variant);
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`[fixture] failed: ${(error as Error).message}\n`);
    process.exitCode = 1;
  },
);
