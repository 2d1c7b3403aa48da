/**
 * `stateguard fixture` as a user meets it: a port already taken is a usage error in one line
 * (exit 2), not a stack trace.
 */
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

describe('stateguard fixture', () => {
  it('refuses a port in use with one line and exit 2', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as AddressInfo;
    try {
      const run = await runCli([
        'fixture',
        '--mode',
        'flawed',
        '--transport',
        'http',
        '--port',
        `${port}`,
      ]);
      expect(run.code).toBe(2);
      const lines = run.stderr.trim().split('\n');
      expect(lines[0]).toBe(
        `stateguard fixture: --port ${port} is in use on 127.0.0.1; pick another, or 0 for any free port`,
      );
      expect(lines[1]).toBe("Try 'stateguard fixture --help'.");
      expect(lines).toHaveLength(2);
      expect(run.stderr).not.toContain('EADDRINUSE');
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });
});
