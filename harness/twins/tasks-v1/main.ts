/**
 * Serves the SDK v1 task fixture over stdio:
 *
 *     node --import tsx harness/twins/tasks-v1/main.ts --variant <v>
 *
 * Writes `[fixture] ready` to stderr once it reads stdin; exits when stdin closes.
 */
import { parseArgs } from 'node:util';
import { serveV1Stdio, V1_VARIANTS } from './index.js';

async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { variant: { type: 'string' } } });
  const variant = values.variant ?? '';
  if (!(V1_VARIANTS as readonly string[]).includes(variant)) {
    process.stderr.write(`usage: --variant <${V1_VARIANTS.join('|')}>\n`);
    return 2;
  }
  await serveV1Stdio(variant);
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
