/**
 * Run the `create_report` example: `--stdio`, or `--http [--port N]`.
 *
 * Environment:
 * - `STATEGUARD_KEYS`: comma-separated secrets (≥ 32 bytes each); the first seals, all open.
 *   Required for `--http` unless `--ephemeral-key` is given.
 * - `STATEGUARD_AUDIENCE`: the audience sealed into every state (default `reports`).
 * - `STATEGUARD_TTL_SECONDS`: lifetime of one round (default 600).
 * - `STATEGUARD_PRINCIPAL`: over stdio, the principal of this process (the spec has stdio servers
 *   take credentials from the environment).
 * - `STATEGUARD_CLOCK_OFFSET_SECONDS`: demos and tests only; runs the clock ahead, so a second
 *   process sharing the key can show what an expired state gets.
 *
 * Flags: `--principal-meta` (stdio: read the principal from `_meta["io.modelcontextprotocol/principal"]`,
 * client-asserted, for fixtures and tests), `--single-use` (refuse a replayed `create_report` round),
 * `--demo-tokens a,b` (HTTP: accept these bearer tokens, each its own user).
 *
 * Prints `[example] ready` on stderr when serving (HTTP: followed by the URL). `--help` prints the
 * usage on stdout and exits 0; a usage error exits 2.
 */
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { createMemoryLedger } from '../../src/ledger/memory.js';
import type { Principal } from '../../src/seal/binding.js';
import {
  createStateGuard,
  principalFromMeta,
  type StateGuardOptions,
} from '../../src/sdk/index.js';
import { createReportServer } from './create-report.js';
import { createReportHttpListener, demoVerifier } from './http.js';

const log = (line: string) => process.stderr.write(`[example] ${line}\n`);

// What `--help` prints: every flag parseArgs accepts, and the environment read.
const EXAMPLE_USAGE = `Usage: npm run example -- (--stdio | --http [--port N]) [options]

Serves the create_report wizard on a stateguard-guarded SDK server.
  --stdio               serve over stdio (a random key unless STATEGUARD_KEYS is set)
  --http                serve Streamable HTTP on 127.0.0.1 (needs STATEGUARD_KEYS)
  --port N              HTTP port, default 0 (any free port; the URL is printed on stderr)
  --ephemeral-key       HTTP: run on a per-process random key instead of STATEGUARD_KEYS
  --principal-meta      read the principal from _meta["io.modelcontextprotocol/principal"]
  --single-use          refuse a replayed create_report round (in-memory ledger)
  --demo-tokens a,b     HTTP: accept these bearer tokens, each its own user (demo verifier)
  -h, --help            this help

Environment: STATEGUARD_KEYS (comma-separated secrets), STATEGUARD_AUDIENCE (default reports),
STATEGUARD_TTL_SECONDS (default 600), STATEGUARD_PRINCIPAL (stdio), STATEGUARD_CLOCK_OFFSET_SECONDS
(demos and tests only).
`;

function numberEnv(name: string): number | undefined {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return undefined;
  const value = Number(raw);
  if (!Number.isFinite(value)) throw new RangeError(`${name} must be a number`);
  return value;
}

function main(): void {
  const { values } = parseArgs({
    options: {
      stdio: { type: 'boolean', default: false },
      http: { type: 'boolean', default: false },
      port: { type: 'string', default: '0' },
      'ephemeral-key': { type: 'boolean', default: false },
      'principal-meta': { type: 'boolean', default: false },
      'single-use': { type: 'boolean', default: false },
      'demo-tokens': { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(EXAMPLE_USAGE);
    return;
  }
  if (values.stdio === values.http) throw new TypeError('pass exactly one of --stdio or --http');
  const transport = values.stdio ? 'stdio' : 'http';

  const keys = (process.env['STATEGUARD_KEYS'] ?? '').split(',').filter((k) => k.length > 0);
  const offsetMs = (numberEnv('STATEGUARD_CLOCK_OFFSET_SECONDS') ?? 0) * 1000;
  const envPrincipal: Principal | undefined = process.env['STATEGUARD_PRINCIPAL'] || undefined;
  const options: StateGuardOptions = {
    transport,
    keys: keys.length > 0 ? keys : undefined,
    allowEphemeralKey: values['ephemeral-key'],
    audience: process.env['STATEGUARD_AUDIENCE'] || 'reports',
    ttlSeconds: numberEnv('STATEGUARD_TTL_SECONDS'),
    now: () => Date.now() + offsetMs,
    // Reason and method only: never the token, state or principal.
    onReject: ({ reason, method, name }) =>
      log(`requestState rejected: reason=${reason} method=${method} name=${name ?? '-'}`),
  };
  if (values['principal-meta']) options.principal = principalFromMeta();
  else if (transport === 'stdio' && envPrincipal !== undefined)
    options.principal = () => envPrincipal;
  if (values['single-use']) {
    options.singleUse = { ledger: createMemoryLedger(), tools: ['create_report'] };
  }
  const guard = createStateGuard(options);
  const hooks = { onCreate: () => log('report created') };

  if (transport === 'stdio') {
    serveStdio(() => createReportServer(guard, hooks));
    log('ready');
    return;
  }
  const tokens = values['demo-tokens']?.split(',').filter((t) => t.length > 0);
  const verifier = tokens === undefined ? undefined : demoVerifier(tokens);
  const server = createServer(createReportHttpListener({ guard, verifier, hooks }));
  server.listen(Number(values.port), '127.0.0.1', () => {
    const address = server.address();
    const port = typeof address === 'object' && address !== null ? address.port : values.port;
    log(`ready http://127.0.0.1:${port}/mcp`);
  });
}

try {
  main();
} catch (error) {
  log(`cannot start: ${error instanceof Error ? error.message : String(error)}`);
  log("try 'npm run example -- --help'");
  process.exitCode = 2;
}
