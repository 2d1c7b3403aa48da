/**
 * The `werkstatt` twin (`server.ts`) on Streamable HTTP (the customer's key in `X-Werkstatt-Key`)
 * and stdio (the scanner's `_meta` principal), one store per process.
 *
 * With `flawed`, both task probes must be CONFIRMED (B reads A's finished report by its number; the
 * per-day counter is predicted); with `fixed`, both REFUTED; with `gated`, both CONFIRMED once the
 * scanner declared the Tasks extension its `-32021` asked for. The task tool is found by calling the
 * tools in the server's order (it is the ninth), and A's job is polled to its end first.
 */
import type { Verdict } from '../../../../src/probe/model/probe.js';
import { quietLog, stderrLog } from '../../../../src/fixture/log.js';
import { callerFor } from '../caller.js';
import { hostHttp, hostStdio } from '../host.js';
import { variantIn, type ForeignTwin, type IdentityCarrier } from '../twin.js';
import { Auftragsbuch, WERKSTATT_VARIANTS, werkstattFactory } from './server.js';
import { nodeEntry } from '../../../node-entry.js';

const HTTP: IdentityCarrier = { kind: 'header', name: 'X-Werkstatt-Key' };
const STDIO: IdentityCarrier = { kind: 'bearer' };

/** The server of `variant`, with a book of its own (and the gate, for `gated`). */
function factoryFor(variant: string, transport: 'http' | 'stdio') {
  const checked = variantIn('werkstatt', WERKSTATT_VARIANTS, variant);
  return werkstattFactory(
    new Auftragsbuch(checked === 'fixed' ? 'fixed' : 'flawed'),
    callerFor(transport, transport === 'http' ? HTTP : STDIO),
    checked === 'gated',
  );
}

const v = (cross: Verdict, guessable: Verdict): Record<string, Verdict> => ({
  'handle/task-cross-principal': cross,
  'handle/task-guessable': guessable,
});

/** The verdicts a correct scanner gives, per variant. */
export const WERKSTATT_EXPECTED: Readonly<
  Record<(typeof WERKSTATT_VARIANTS)[number], Readonly<Record<string, Verdict>>>
> = {
  flawed: v('confirmed', 'confirmed'),
  fixed: v('refuted', 'refuted'),
  gated: v('confirmed', 'confirmed'),
};

/** The command that serves `variant` over stdio, built, or from source (see node-entry.ts). */
export function werkstattStdioCommand(variant: string): { command: string; args: string[] } {
  return {
    command: process.execPath,
    args: [...nodeEntry(import.meta.url, './main.js'), '--variant', variant],
  };
}

export const werkstatt: ForeignTwin = {
  id: 'werkstatt',
  summary: 'A German back office whose ninth tool answers with a task that runs a while',
  variants: WERKSTATT_VARIANTS,
  transports: ['http', 'stdio'],
  identity: { http: HTTP, stdio: STDIO },
  expected: WERKSTATT_EXPECTED,
  startHttp: (variant) =>
    hostHttp({
      factory: factoryFor(variant, 'http'),
      carrier: HTTP,
      path: '/buero/mcp',
      log: quietLog,
    }),
  serveStdio: (variant) => hostStdio(factoryFor(variant, 'stdio'), stderrLog),
  stdioCommand: werkstattStdioCommand,
};
