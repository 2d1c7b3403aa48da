/**
 * The scan API takes limits in ms (the CLI parses units); a limit no Node.js timer can hold would
 * fire at once and read as a deadline that passed, so it is misuse: `RangeError`, naming the field.
 */
import { describe, expect, it } from 'vitest';
import { PROBES } from '../../../src/probe/runner/registry.js';
import { runScan } from '../../../src/probe/runner/scan.js';

const target = { kind: 'stdio', command: 'stateguard-no-such-command-31337', args: [] } as const;

describe('runScan limits', () => {
  it.each([
    ['deadlineMs', { deadlineMs: 2 ** 31 }],
    ['timeoutMs', { timeoutMs: Number.POSITIVE_INFINITY }],
    ['startupTimeoutMs', { startupTimeoutMs: 0 }],
    ['deadlineMs', { deadlineMs: Number.NaN }],
  ])('refuses %s out of range before starting anything', async (name, limits) => {
    await expect(runScan({ target, probes: PROBES, ...limits })).rejects.toThrow(
      new RangeError(`${name} must be a number of ms in 1..2147483647`),
    );
  });

  it('takes the largest a timer holds', async () => {
    const report = await runScan({
      target,
      probes: PROBES,
      deadlineMs: 2 ** 31 - 1,
      timeoutMs: 2000,
    });
    expect(report.problem).toContain('ENOENT');
  });
});
