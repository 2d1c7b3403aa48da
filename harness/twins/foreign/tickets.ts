/**
 * `tickets`: integer ids, as issue trackers and database-backed servers hand out. `file_ticket`
 * answers `structuredContent: { ticket: { id: 17, status } }` (a number, counted up per process);
 * `show_ticket({ id: integer })` answers the ticket with its reporter; `reassign_ticket({ id,
 * assignee })` asks for confirmation (input_required) and then names the ticket, the new assignee
 * and who asked.
 *
 * flawed: tickets are looked up by number with no reporter check, and the reassignment state is
 * base64 JSON `{ id, assignee, by }` that the final round acts on (it names `by` and the ticket).
 * fixed: only the reporter may see or reassign a ticket (anyone else gets "no ticket #N", the same
 * answer as for a number that does not exist), and the state is sealed by stateguard's guard.
 */
import { randomBytes } from 'node:crypto';
import {
  inputRequired,
  inputResponse,
  McpServer,
  type CallToolResult,
  type McpServerFactory,
} from '@modelcontextprotocol/server';
import * as z from 'zod';
import { createStateGuard } from '../../../src/sdk/guard.js';
import { quietLog, stderrLog, type FixtureLog } from '../../../src/fixture/log.js';
import { callerFor, type CallerOf } from './caller.js';
import { encodedJson, guardedJson, record, shortText, type FlowCodec } from './flow-state.js';
import { hostHttp, hostStdio } from './host.js';
import { variantIn, type ForeignTwin, type IdentityCarrier } from './twin.js';

const VARIANTS = ['flawed', 'fixed'] as const;
type Variant = (typeof VARIANTS)[number];
const INFO = { name: 'tracker', version: '3.2.1' } as const;
const CARRIER: IdentityCarrier = { kind: 'bearer' };
const MAX_TICKETS = 5000;
const CONFIRM = 'confirm_reassign';

interface Ticket {
  readonly summary: string;
  readonly reporter: string;
  assignee?: string;
}

interface ReassignState {
  readonly id: number;
  readonly assignee: string;
  readonly by: string;
}

function reassignState(value: unknown): ReassignState | undefined {
  const v = record(value);
  const id = v?.['id'];
  const assignee = shortText(v?.['assignee'], 200);
  const by = shortText(v?.['by'], 512);
  return typeof id === 'number' && Number.isSafeInteger(id) && assignee && by
    ? { id, assignee, by }
    : undefined;
}

const failure = (text: string): CallToolResult => ({
  content: [{ type: 'text', text }],
  isError: true,
});

/** The tickets of one process, numbered from 1: they outlive the per-request SDK server. */
interface Tracker {
  readonly tickets: Map<number, Ticket>;
  next: number;
}

function register(
  server: McpServer,
  variant: Variant,
  tracker: Tracker,
  codec: FlowCodec<ReassignState>,
  callerOf: CallerOf,
): void {
  const { tickets } = tracker;
  // flawed: a number is all it takes; fixed: only the reporter sees the ticket.
  const find = (id: number, caller: string): Ticket | undefined => {
    const t = tickets.get(id);
    return t !== undefined && (variant === 'flawed' || t.reporter === caller) ? t : undefined;
  };
  server.registerTool(
    'file_ticket',
    {
      description: 'File a ticket with a one-line summary.',
      inputSchema: z.object({ summary: z.string().min(1).max(300) }),
    },
    async ({ summary }, ctx) => {
      if (tickets.size >= MAX_TICKETS) tickets.delete(tickets.keys().next().value as number);
      const id = tracker.next++;
      tickets.set(id, { summary, reporter: callerOf(ctx) });
      return {
        content: [{ type: 'text', text: `Filed ticket #${id}.` }],
        structuredContent: { ticket: { id, status: 'open' } },
      };
    },
  );
  server.registerTool(
    'show_ticket',
    {
      description: 'Show a ticket by its number.',
      inputSchema: z.object({ id: z.number().int().min(1) }),
      annotations: { readOnlyHint: true },
    },
    async ({ id }, ctx) => {
      const t = find(id, callerOf(ctx));
      if (t === undefined) return failure(`no ticket #${id}`);
      return {
        content: [
          {
            type: 'text',
            text: `#${id} ${t.summary} (reported by ${t.reporter}${t.assignee ? `, assigned to ${t.assignee}` : ''})`,
          },
        ],
      };
    },
  );
  server.registerTool(
    'reassign_ticket',
    {
      description: 'Reassign a ticket to someone else. Asks for confirmation first.',
      inputSchema: z.object({ id: z.number().int().min(1), assignee: z.string().min(1).max(200) }),
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
    },
    async ({ id, assignee }, ctx) => {
      const caller = callerOf(ctx);
      const state = codec.read(ctx);
      if (state === null) return failure('that confirmation is not valid');
      if (state === undefined) {
        const t = find(id, caller);
        if (t === undefined) return failure(`no ticket #${id}`);
        return inputRequired({
          inputRequests: {
            [CONFIRM]: inputRequired.elicit({
              message: `Reassign #${id} to ${assignee}?`,
              requestedSchema: z.object({ ok: z.boolean() }),
            }),
          },
          requestState: codec.write({ id, assignee, by: caller }),
        });
      }
      const view = inputResponse(ctx.mcpReq.inputResponses, CONFIRM);
      if (view.kind !== 'elicit' || view.action !== 'accept' || view.content?.['ok'] !== true)
        return failure('not confirmed');
      // The final round acts on the state: the ticket and the requester it carries.
      const t = tickets.get(state.id);
      if (t === undefined) return failure(`no ticket #${state.id}`);
      t.assignee = state.assignee;
      return {
        content: [
          {
            type: 'text',
            text: `#${state.id} "${t.summary}" reassigned to ${state.assignee} at the request of ${state.by}.`,
          },
        ],
      };
    },
  );
}

function factoryFor(
  variant: Variant,
  transport: 'http' | 'stdio',
  log: FixtureLog,
): McpServerFactory {
  const callerOf = callerFor(transport, CARRIER);
  const tracker: Tracker = { tickets: new Map(), next: 1 };
  if (variant === 'flawed') {
    const codec = encodedJson('base64', reassignState);
    return () => {
      const server = new McpServer(INFO);
      register(server, variant, tracker, codec, callerOf);
      return server;
    };
  }
  const guard = createStateGuard({
    transport,
    keys: randomBytes(32),
    audience: INFO.name,
    principal: callerOf,
    onReject: ({ reason }) => log(`[tickets] requestState refused (${reason})`),
  });
  const codec = guardedJson(reassignState);
  return () => {
    const server = guard.protect(new McpServer(INFO));
    register(server, variant, tracker, codec, callerOf);
    return server;
  };
}

const variantOf = (variant: string): Variant => variantIn('tickets', VARIANTS, variant);

/** The `tickets` twin. */
export const tickets: ForeignTwin = {
  id: 'tickets',
  // The flaw lives on tools the call plan leaves alone by default: the proof scan has the user's word.
  allowTools: ['file_ticket', 'reassign_ticket'],
  summary: 'An issue tracker with integer ids and a multi-round reassignment that takes one',
  variants: VARIANTS,
  transports: ['http', 'stdio'],
  identity: { http: CARRIER, stdio: CARRIER },
  expected: {
    flawed: {
      'handle/cross-principal': 'confirmed',
      'state/tamper': 'confirmed',
      'state/replay-principal': 'confirmed',
      'state/replay-request': 'confirmed',
      'state/replay-after-completion': 'skipped',
      'state/error-oracle': 'refuted',
    },
    fixed: {
      'handle/cross-principal': 'refuted',
      'state/tamper': 'refuted',
      'state/replay-principal': 'refuted',
      'state/replay-request': 'refuted',
      'state/replay-after-completion': 'skipped',
      'state/error-oracle': 'refuted',
    },
  },
  startHttp: (variant) =>
    hostHttp({
      factory: factoryFor(variantOf(variant), 'http', quietLog),
      carrier: CARRIER,
      path: '/tracker/mcp',
    }),
  serveStdio: (variant) => hostStdio(factoryFor(variantOf(variant), 'stdio', stderrLog), stderrLog),
};
