/**
 * One instance of the soak fleet: the `create_report` example on Streamable HTTP, guarded (shared
 * keys, single use in Redis) or not, in its own process so that killing it is a real SIGKILL.
 *
 * Everything the soak counts is written to a journal file, one JSON line per event, with a
 * synchronous append: an effect is journaled before its answer leaves the process, so an instance
 * killed right after creating a report still shows the report. Events:
 * `{"kind":"effect","title":…}` (a report created) and `{"kind":"reject","reason":…}` (the guard's
 * `onReject`, the server log of every refusal).
 *
 * Environment: `SOAK_PORT` (0: any), `SOAK_KEYS` (comma-separated), `SOAK_GUARDED` (`1` or `0`),
 * `SOAK_REDIS_URL`, `SOAK_LEDGER_TIMEOUT_MS`, `SOAK_CLOCK_SKEW_MS`, `SOAK_CLOCK_OFFSET_MS` (this instance's clock, ahead of the host's by that much), `SOAK_TOKENS` (comma-separated bearer tokens, each its
 * own user), `SOAK_JOURNAL` (file). Prints `[soak-instance] ready <port>` on stderr; SIGTERM closes
 * the listener, lets requests in flight finish (bounded) and exits.
 */
import { appendFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createReportHttpListener, demoVerifier } from '../examples/http.js';
import type { SingleUseLedger } from '../../src/ledger/types.js';
import { createRedisLedger } from '../../src/ledger/redis.js';
import { createStateGuard, type StateGuard } from '../../src/sdk/index.js';

const DRAIN_MS = 3_000;

/** The same server, unprotected: plaintext state, no single use (the soak's baseline). */
const NO_GUARD: StateGuard = {
  transport: 'http',
  ephemeralKey: false,
  protect: (server) => server,
};

function env(name: string): string {
  const value = process.env[name];
  if (value === undefined || value === '') throw new TypeError(`${name} is required`);
  return value;
}

function main(): void {
  const journal = env('SOAK_JOURNAL');
  const record = (event: Record<string, unknown>): void =>
    appendFileSync(journal, `${JSON.stringify({ at: Date.now(), ...event })}\n`);
  const guarded = env('SOAK_GUARDED') === '1';
  let ledger: SingleUseLedger | undefined;
  let guard = NO_GUARD;
  if (guarded) {
    ledger = createRedisLedger({
      url: env('SOAK_REDIS_URL'),
      timeoutMs: Number(process.env['SOAK_LEDGER_TIMEOUT_MS'] ?? 1000),
      clockSkewMs: Number(process.env['SOAK_CLOCK_SKEW_MS'] ?? 60_000),
    });
    // This instance's clock: the host's, moved by SOAK_CLOCK_OFFSET_MS (skewed clocks in a fleet).
    const offset = Number(process.env['SOAK_CLOCK_OFFSET_MS'] ?? 0);
    guard = createStateGuard({
      now: () => Date.now() + offset,
      transport: 'http',
      keys: env('SOAK_KEYS').split(','),
      audience: 'reports',
      singleUse: { ledger, tools: ['create_report'] },
      onReject: ({ reason }) => record({ kind: 'reject', reason }),
    });
  }
  const listener = createReportHttpListener({
    guard,
    verifier: demoVerifier(env('SOAK_TOKENS').split(',')),
    hooks: { onCreate: ({ title }) => record({ kind: 'effect', title }) },
  });
  const server = createServer(listener);
  server.keepAliveTimeout = 5_000;
  server.listen(Number(process.env['SOAK_PORT'] ?? 0), '127.0.0.1', () => {
    const { port } = server.address() as AddressInfo;
    process.stderr.write(`[soak-instance] ready ${port}\n`);
  });
  process.once('SIGTERM', () => {
    // A graceful stop, as a rolling deploy does: no new connections, requests in flight finish.
    const exit = (): void => {
      void (ledger?.close() ?? Promise.resolve()).finally(() => process.exit(0));
    };
    setTimeout(() => process.exit(0), DRAIN_MS).unref();
    server.close(exit);
    server.closeIdleConnections();
  });
}

main();
