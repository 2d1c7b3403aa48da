/**
 * Serves one complexity server over stdio:
 * `node dist-harness/harness/twins/complexity/main.js --shape <shape> --bytes <n>`.
 */
import { parseArgs } from 'node:util';
import { COMPLEXITY_SHAPES, MAX_COMPLEXITY_BYTES, type ComplexityShape } from './shapes.js';
import { serveComplexityStdio } from './wire.js';

async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: { shape: { type: 'string' }, bytes: { type: 'string' } },
    strict: true,
  });
  const shape = values.shape as ComplexityShape;
  const bytes = Number(values.bytes);
  if (
    !COMPLEXITY_SHAPES.includes(shape) ||
    !Number.isSafeInteger(bytes) ||
    bytes < 1 ||
    bytes > MAX_COMPLEXITY_BYTES
  ) {
    process.stderr.write(
      `usage: --shape ${COMPLEXITY_SHAPES.join('|')} --bytes <1..${MAX_COMPLEXITY_BYTES}>\n`,
    );
    return 2;
  }
  await serveComplexityStdio(shape, bytes);
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
