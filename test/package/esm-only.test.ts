/**
 * The package's `require` condition (`cjs/`): where Node.js can require() an ES module it hands the
 * module over; where it cannot (before 20.19 / 22.12) the error names the fix instead of Node's.
 */
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);
const esmOnly = require('../../cjs/esm-only.cjs') as (
  load: () => unknown,
  entry: string,
) => unknown;

describe('cjs/esm-only.cjs', () => {
  it('returns the module when require() of an ES module works', () => {
    const module = { createStateSealer: () => undefined };
    expect(esmOnly(() => module, 'stateguard')).toBe(module);
  });

  it('turns ERR_REQUIRE_ESM into one error that names the fix, keeping the code and the cause', () => {
    const cause = Object.assign(new Error('require() of ES Module … not supported'), {
      code: 'ERR_REQUIRE_ESM',
    });
    let thrown: unknown;
    try {
      esmOnly(() => {
        throw cause;
      }, 'stateguard/sdk');
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toMatchObject({ code: 'ERR_REQUIRE_ESM', cause });
    expect((thrown as Error).message).toBe(
      "require('stateguard/sdk'): stateguard is ESM only: import it (or `await import(...)` from " +
        'CommonJS). In a TypeScript project, set "type": "module" in package.json and "module": ' +
        '"node16" (or "nodenext") in tsconfig.json; see the README, Install.',
    );
  });

  it('lets any other failure through as it is', () => {
    const other = new Error('boom');
    expect(() =>
      esmOnly(() => {
        throw other;
      }, 'stateguard'),
    ).toThrow(other);
  });
});
