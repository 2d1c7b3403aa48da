/**
 * The first-attempts family: servers written the way the SDK's examples and tutorials show a first
 * multi-round tool, on the official SDK v2 (`McpServer`, `registerTool`, `inputRequired`), each
 * with the mistake a hurried developer makes (or, for the controls, without one). One twin, one
 * variant per server; it follows the foreign twins' contract (`../foreign/twin.ts`), so the same
 * harness starts, scans and checks it. Identity: the bearer token over HTTP, the `_meta` principal
 * over stdio. docs/fixtures.md describes every variant.
 */
import { randomBytes } from 'node:crypto';
import { McpServer, type McpServerFactory } from '@modelcontextprotocol/server';
import { createMemoryLedger } from '../../../src/ledger/memory.js';
import type { Verdict } from '../../../src/probe/model/probe.js';
import { createStateGuard } from '../../../src/sdk/guard.js';
import { quietLog, stderrLog, type FixtureLog } from '../../../src/fixture/log.js';
import { callerFor } from '../foreign/caller.js';
import { hostHttp, hostStdio } from '../foreign/host.js';
import { variantIn, type ForeignTwin, type IdentityCarrier } from '../foreign/twin.js';
import { registerInspectRequest, registerPreviewTrip } from './debug.js';
import { registerPublishPost } from './publish.js';
import { registerOrderSupplies } from './supplies.js';
import { createBookingBook, registerTables } from './tables.js';
import { registerPlanTrip, TRIP_VARIANTS, type TripVariant } from './trip.js';
import { nodeEntry } from '../../node-entry.js';

export const FIRST_ATTEMPT_VARIANTS = [
  'json-user',
  'json-user-checked',
  'json-amount',
  'json-step',
  'base64-json',
  'json-digest',
  'user-preferred',
  'prose-codes',
  'never-read',
  'echo-request',
  'print-state',
  'sealed',
] as const;
export type FirstAttemptVariant = (typeof FIRST_ATTEMPT_VARIANTS)[number];

const STDIO_CARRIER: IdentityCarrier = { kind: 'bearer' };

/** The server's name per variant (and the guard's and handle binder's audience). */
const SERVER_NAME: Record<FirstAttemptVariant, string> = {
  'json-user': 'trip-planner',
  'json-user-checked': 'trip-planner',
  'json-amount': 'supply-desk',
  'json-step': 'team-blog',
  'base64-json': 'trip-planner',
  'json-digest': 'trip-planner',
  'user-preferred': 'trip-planner',
  'prose-codes': 'table-booking',
  'never-read': 'trip-planner',
  'echo-request': 'request-inspector',
  'print-state': 'trip-preview',
  sealed: 'trip-planner',
};

const isTrip = (variant: string): variant is TripVariant =>
  (TRIP_VARIANTS as readonly string[]).includes(variant);

function factoryFor(
  variant: FirstAttemptVariant,
  transport: 'http' | 'stdio',
  log: FixtureLog,
): McpServerFactory {
  const callerOf = callerFor(transport, STDIO_CARRIER);
  const name = SERVER_NAME[variant];
  const book =
    variant === 'prose-codes' || variant === 'sealed'
      ? createBookingBook(variant === 'sealed' ? 'bound' : 'open', name)
      : undefined;
  const guard =
    variant === 'sealed'
      ? createStateGuard({
          transport,
          keys: randomBytes(32),
          audience: name,
          principal: callerOf,
          singleUse: { ledger: createMemoryLedger({ maxEntries: 10_000 }), tools: ['plan_trip'] },
          onReject: ({ reason }) => log(`[first-attempts] requestState refused (${reason})`),
        })
      : undefined;
  return () => {
    const server = new McpServer({ name, version: '0.1.0' });
    // Before any tool: the guard wraps the tools/call handler McpServer registers with the first.
    guard?.protect(server);
    if (isTrip(variant)) registerPlanTrip(server, variant, callerOf);
    if (book !== undefined) registerTables(server, book, callerOf);
    if (variant === 'json-amount') registerOrderSupplies(server, callerOf);
    if (variant === 'json-step') registerPublishPost(server, callerOf);
    if (variant === 'echo-request') registerInspectRequest(server, callerOf);
    if (variant === 'print-state') registerPreviewTrip(server, callerOf);
    return server;
  };
}

const checked = (variant: string): FirstAttemptVariant =>
  variantIn('first-attempts', FIRST_ATTEMPT_VARIANTS, variant);

type Verdicts = Readonly<Record<string, Verdict>>;

/** A readable state trusted for the user: every state probe's flaw at once. */
const TRUSTS_THE_USER: Verdicts = {
  'state/tamper': 'confirmed',
  'state/replay-principal': 'confirmed',
  'state/replay-request': 'confirmed',
  'state/replay-after-completion': 'confirmed',
};
/** A state shown back and never acted on: nothing to confirm. */
const SHOWS_THE_STATE: Verdicts = {
  'state/tamper': 'refuted',
  'state/replay-principal': 'refuted',
  'state/replay-request': 'refuted',
};

/**
 * What a correct scanner must answer, per variant: only what the flaw's own definition decides
 * (a probe left out is not asserted). `transport/origin` is `refuted` over HTTP for every variant
 * (the host checks `Origin`); the proof test and the demo assert it there.
 */
export const FIRST_ATTEMPT_EXPECTED: Readonly<Record<FirstAttemptVariant, Verdicts>> = {
  'json-user': TRUSTS_THE_USER,
  'json-user-checked': TRUSTS_THE_USER,
  'json-amount': { 'state/tamper': 'confirmed', 'state/replay-request': 'confirmed' },
  'json-step': { 'state/tamper': 'confirmed' },
  'base64-json': TRUSTS_THE_USER,
  'json-digest': TRUSTS_THE_USER,
  'user-preferred': TRUSTS_THE_USER,
  'prose-codes': {
    'handle/cross-principal': 'confirmed',
    'state/tamper': 'skipped',
    'state/replay-principal': 'skipped',
    'state/replay-request': 'skipped',
    'state/replay-after-completion': 'skipped',
    'state/error-oracle': 'skipped',
  },
  'never-read': { 'state/tamper': 'refuted', 'state/replay-principal': 'refuted' },
  'echo-request': SHOWS_THE_STATE,
  'print-state': SHOWS_THE_STATE,
  sealed: {
    'handle/cross-principal': 'refuted',
    'state/tamper': 'refuted',
    'state/replay-principal': 'refuted',
    'state/replay-request': 'refuted',
    'state/replay-after-completion': 'refuted',
    'state/error-oracle': 'refuted',
  },
};

/** The command that serves `variant` over stdio, built, or from source (see node-entry.ts). */
export function firstAttemptStdioCommand(variant: string): { command: string; args: string[] } {
  return {
    command: process.execPath,
    args: [...nodeEntry(import.meta.url, './main.js'), '--variant', variant],
  };
}

export const firstAttempts: ForeignTwin = {
  id: 'first-attempts',
  summary: 'First multi-round tools as SDK examples and tutorials show them, flaws and controls',
  variants: FIRST_ATTEMPT_VARIANTS,
  transports: ['http', 'stdio'],
  identity: { http: { kind: 'bearer' }, stdio: STDIO_CARRIER },
  expected: FIRST_ATTEMPT_EXPECTED,
  // Booking a table and posting for review reach people: the proof scan has the user's word.
  allowTools: ['book_table', 'review_post'],
  startHttp: (variant) =>
    hostHttp({
      factory: factoryFor(checked(variant), 'http', quietLog),
      carrier: { kind: 'bearer' },
      path: '/mcp',
    }),
  serveStdio: (variant) => hostStdio(factoryFor(checked(variant), 'stdio', stderrLog), stderrLog),
  stdioCommand: firstAttemptStdioCommand,
};

/** Every twin of the family, in the order the demo prints them. */
export const FIRST_ATTEMPT_TWINS: readonly ForeignTwin[] = [firstAttempts];
