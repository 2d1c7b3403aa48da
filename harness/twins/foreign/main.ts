/**
 * Serves one foreign twin over stdio:
 *
 *     node --import tsx harness/twins/foreign/main.ts --twin <id> --variant <v>
 *
 * Only the named twin is loaded (see load.ts); the whole registry only to print the usage.
 */
import { parseArgs } from 'node:util';
import { loadTwin } from './load.js';

async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: { twin: { type: 'string' }, variant: { type: 'string' } },
    strict: true,
  });
  const twin = await loadTwin(values.twin ?? '');
  if (twin === undefined || !twin.variants.includes(values.variant ?? '')) {
    const { FOREIGN_TWINS } = await import('./index.js');
    const ids = FOREIGN_TWINS.map((t) => `${t.id} (${t.variants.join(', ')})`).join('; ');
    process.stderr.write(`usage: --twin <id> --variant <variant>; twins: ${ids}\n`);
    return 2;
  }
  await twin.serveStdio(values.variant as string);
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
