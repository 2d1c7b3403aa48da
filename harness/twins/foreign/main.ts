/**
 * Serves one foreign twin over stdio:
 *
 *     node --import tsx harness/twins/foreign/main.ts --twin <id> --variant <v>
 */
import { parseArgs } from 'node:util';
import { foreignTwin, FOREIGN_TWINS } from './index.js';

async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: { twin: { type: 'string' }, variant: { type: 'string' } },
    strict: true,
  });
  const twin = foreignTwin(values.twin ?? '');
  if (twin === undefined || !twin.variants.includes(values.variant ?? '')) {
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
