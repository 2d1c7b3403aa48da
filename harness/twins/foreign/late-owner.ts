/**
 * `late-owner`: a handle consumer that names the owner only when the flow completes.
 *
 * `openCase({ summary })` mints a case number. `escalateCase({ caseNumber })` takes two rounds: round 1
 * asks for confirmation, quoting the case summary but nobody's name; the final round says which case
 * was escalated and who owns it. A scanner that judges round 1 alone sees A's summary (if it looks in
 * the question) but never A's name.
 *
 * Both variants seal the flow's `requestState` with stateguard's guard, so the state probes have a
 * surface and find it sound. The variants differ in the case number only:
 * - flawed: a random `CS-` number looked up with no owner check, on both rounds;
 * - fixed: a stateguard handle bound to the case's owner.
 */
import { randomBytes } from 'node:crypto';
import {
  inputRequired,
  inputResponse,
  McpServer,
  type CallToolResult,
  type McpServerFactory,
  type ServerContext,
} from '@modelcontextprotocol/server';
import * as z from 'zod';
import { createHandleBinder } from '../../../src/bind/handle.js';
import { HandleRejectedError } from '../../../src/errors.js';
import { createStateGuard } from '../../../src/sdk/guard.js';
import { quietLog, stderrLog, type FixtureLog } from '../../../src/fixture/log.js';
import { callerFor, type CallerOf } from './caller.js';
import { guardedJson, record, shortText } from './flow-state.js';
import { hostHttp, hostStdio } from './host.js';
import { variantIn, type ForeignTwin, type IdentityCarrier } from './twin.js';

const VARIANTS = ['flawed', 'fixed'] as const;
type Variant = (typeof VARIANTS)[number];
const INFO = { name: 'helpdesk-cases', version: '5.1.0' } as const;
const CARRIER: IdentityCarrier = { kind: 'bearer' };
const KIND = 'case';
const MAX_CASES = 5000;
const CONFIRM = 'confirmEscalation';
const NO_CASE = 'No open case has that number.';

interface Case {
  readonly summary: string;
  readonly owner: string;
  escalated: boolean;
}

interface CaseBook {
  open(owner: string, summary: string): string;
  /** The case `caseNumber` names for `caller`, or `undefined`. */
  find(caseNumber: string, caller: string): Case | undefined;
}

function caseBook(variant: Variant, log: FixtureLog): CaseBook {
  const cases = new Map<string, Case>();
  const keep = (key: string, entry: Case): void => {
    if (cases.size >= MAX_CASES) cases.delete(cases.keys().next().value as string);
    cases.set(key, entry);
  };
  if (variant === 'flawed') {
    return {
      open(owner, summary) {
        const caseNumber = `CS-${randomBytes(8).toString('hex')}`;
        keep(caseNumber, { summary, owner, escalated: false });
        return caseNumber;
      },
      // The flaw: whoever has the number has the case.
      find: (caseNumber) => cases.get(caseNumber),
    };
  }
  const binder = createHandleBinder({ keys: randomBytes(32), audience: INFO.name });
  return {
    open(owner, summary) {
      const { handle, claims } = binder.issue(owner, KIND);
      keep(claims.handleId, { summary, owner, escalated: false });
      return handle;
    },
    find(caseNumber, caller) {
      try {
        return cases.get(binder.open(caseNumber, caller, KIND).handleId);
      } catch (error) {
        if (!(error instanceof HandleRejectedError)) throw error;
        log(`[cases] case number refused (${error.reason})`);
        return undefined;
      }
    },
  };
}

interface EscalationState {
  caseNumber: string;
  step: 'confirm';
}

function escalationState(value: unknown): EscalationState | undefined {
  const v = record(value);
  const caseNumber = shortText(v?.['caseNumber']);
  return caseNumber !== undefined && v?.['step'] === 'confirm'
    ? { caseNumber, step: 'confirm' }
    : undefined;
}

const codec = guardedJson(escalationState);

function failure(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}

function ask(state: EscalationState, summary: string) {
  return inputRequired({
    inputRequests: {
      [CONFIRM]: inputRequired.elicit({
        message: `Escalate the case "${summary}" to the on-call lead?`,
        requestedSchema: z.object({ confirm: z.boolean().describe('true to escalate') }),
      }),
    },
    requestState: codec.write(state),
  });
}

function confirmed(ctx: ServerContext): boolean | undefined {
  const view = inputResponse(ctx.mcpReq.inputResponses, CONFIRM);
  if (view.kind !== 'elicit') return undefined;
  if (view.action !== 'accept') return false;
  const value = view.content?.['confirm'];
  return typeof value === 'boolean' ? value : undefined;
}

function register(server: McpServer, book: CaseBook, callerOf: CallerOf): void {
  server.registerTool(
    'openCase',
    {
      title: 'Open a case',
      description: 'Open a support case with a short summary. Returns its case number.',
      inputSchema: z.object({ summary: z.string().min(1).max(500) }),
      annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
    },
    async ({ summary }, ctx) => {
      const caseNumber = book.open(callerOf(ctx), summary);
      return {
        content: [{ type: 'text', text: `Case ${caseNumber} is open.` }],
        structuredContent: { caseNumber, status: 'open' },
      };
    },
  );
  server.registerTool(
    'escalateCase',
    {
      title: 'Escalate a case',
      description: 'Escalate a support case to the on-call lead. Asks for confirmation first.',
      inputSchema: z.object({ caseNumber: z.string().min(1).max(600) }),
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      },
    },
    async ({ caseNumber }, ctx) => {
      const caller = callerOf(ctx);
      const echoed = codec.read(ctx);
      if (echoed === null) return failure('This escalation has expired. Please start again.');
      const number = echoed?.caseNumber ?? caseNumber;
      const found = book.find(number, caller);
      if (found === undefined) return failure(NO_CASE);
      if (echoed === undefined) return ask({ caseNumber, step: 'confirm' }, found.summary);
      const yes = confirmed(ctx);
      if (yes === undefined) return ask(echoed, found.summary);
      if (!yes) return { content: [{ type: 'text', text: 'The case was not escalated.' }] };
      found.escalated = true;
      return {
        content: [{ type: 'text', text: `Escalated case ${number} owned by ${found.owner}.` }],
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
  const book = caseBook(variant, log);
  // Both variants seal their state: only the case number tells them apart.
  const guard = createStateGuard({
    transport,
    keys: randomBytes(32),
    audience: INFO.name,
    principal: callerOf,
    onReject: ({ reason }) => log(`[cases] requestState refused (${reason})`),
  });
  return () => {
    const server = guard.protect(new McpServer(INFO));
    register(server, book, callerOf);
    return server;
  };
}

const checked = (variant: string): Variant => variantIn('late-owner', VARIANTS, variant);

export const lateOwner: ForeignTwin = {
  id: 'late-owner',
  // The flaw lives on tools the call plan leaves alone by default: the proof scan has the user's word.
  allowTools: ['escalateCase'],
  summary: 'Support cases whose only consumer is multi-round and names the owner at completion',
  variants: VARIANTS,
  transports: ['http', 'stdio'],
  identity: { http: CARRIER, stdio: CARRIER },
  expected: {
    flawed: {
      'handle/cross-principal': 'confirmed',
      'state/tamper': 'refuted',
      'state/replay-principal': 'refuted',
      'state/replay-request': 'refuted',
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
      factory: factoryFor(checked(variant), 'http', quietLog),
      carrier: CARRIER,
      path: '/rpc',
    }),
  serveStdio: (variant) => hostStdio(factoryFor(checked(variant), 'stdio', stderrLog), stderrLog),
};
