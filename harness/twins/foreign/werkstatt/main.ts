/**
 * Serves the `werkstatt` twin over stdio:
 *
 *     node --import tsx harness/twins/foreign/werkstatt/main.ts --variant <v>
 *
 * Writes `[fixture] ready` to stderr once it reads stdin; exits when stdin closes.
 */
import { parseArgs } from 'node:util';
import { werkstatt } from './index.js';
import { WERKSTATT_VARIANTS } from './server.js';

async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { variant: { type: 'string' } } });
  const variant = values.variant ?? '';
  if (!(WERKSTATT_VARIANTS as readonly string[]).includes(variant)) {
    process.stderr.write(`usage: --variant <${WERKSTATT_VARIANTS.join('|')}>\n`);
    return 2;
  }
  await werkstatt.serveStdio(variant);
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
