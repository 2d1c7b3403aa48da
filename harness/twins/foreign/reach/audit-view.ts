/**
 * `audit-view`: a flow behind one enum value. `account_view({ customer, detail, archived? })` is
 * read-only; `detail` is `summary` (its first value, what a scanner sends by default), `full` or
 * `audit`, and `archived` an optional boolean. Only `detail: "audit"` asks for input (why the
 * audit view is needed) with a `requestState`, and the last round shows the audit view from the
 * state. A scanner that only ever sends an enum's first value never sees a flow here.
 *
 * flawed: the state is base64url JSON `{ customer, for }` that the last round believes: it shows
 * the state's customer for the state's `for`.
 * fixed: the same JSON, sealed by stateguard's guard (bound to caller, tool and arguments).
 */
import { randomBytes } from 'node:crypto';
import {
  inputRequired,
  inputResponse,
  McpServer,
  type McpServerFactory,
} from '@modelcontextprotocol/server';
import * as z from 'zod';
import { createStateGuard } from '../../../../src/sdk/guard.js';
import { quietLog, stderrLog, type FixtureLog } from '../../../../src/fixture/log.js';
import { callerFor, type CallerOf } from '../caller.js';
import { encodedJson, guardedJson, record, shortText, type FlowCodec } from '../flow-state.js';
import { hostHttp, hostStdio } from '../host.js';
import { failure } from '../missed/kit.js';
import { variantIn, type ForeignTwin, type IdentityCarrier } from '../twin.js';

const VARIANTS = ['flawed', 'fixed'] as const;
type Variant = (typeof VARIANTS)[number];
const INFO = { name: 'account-desk', version: '3.2.0' } as const;
const CARRIER: IdentityCarrier = { kind: 'bearer' };
const REASON = 'reason';

interface AuditState {
  readonly customer: string;
  readonly for: string;
}

function auditState(value: unknown): AuditState | undefined {
  const v = record(value);
  const customer = shortText(v?.['customer'], 200);
  const who = shortText(v?.['for'], 512);
  return customer && who ? { customer, for: who } : undefined;
}

function register(server: McpServer, codec: FlowCodec<AuditState>, callerOf: CallerOf): void {
  server.registerTool(
    'account_view',
    {
      description: 'Show a customer account at the detail asked for.',
      inputSchema: z.object({
        customer: z.string().min(1).max(200),
        detail: z.enum(['summary', 'full', 'audit']),
        archived: z.boolean().optional(),
      }),
      annotations: { readOnlyHint: true },
    },
    async ({ customer, detail, archived }, ctx) => {
      const caller = callerOf(ctx);
      if (detail !== 'audit') {
        const scope = archived === true ? ', archived records included' : '';
        return { content: [{ type: 'text', text: `Account "${customer}" (${detail}${scope}).` }] };
      }
      const state = codec.read(ctx);
      if (state === null) return failure('That audit view has expired. Start again.');
      if (state === undefined)
        return inputRequired({
          inputRequests: {
            [REASON]: inputRequired.elicit({
              message: 'Why do you need the audit view?',
              requestedSchema: z.object({ reason: z.string().max(200) }),
            }),
          },
          requestState: codec.write({ customer, for: caller }),
        });
      const view = inputResponse(ctx.mcpReq.inputResponses, REASON);
      if (view.kind !== 'elicit' || view.action !== 'accept') return failure('No reason given.');
      // The last round shows what the state names, for whom the state names.
      return {
        content: [
          { type: 'text', text: `Audit view of "${state.customer}", opened for ${state.for}.` },
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
  if (variant === 'flawed') {
    const codec = encodedJson('base64url', auditState);
    return () => {
      const server = new McpServer(INFO);
      register(server, codec, callerOf);
      return server;
    };
  }
  const guard = createStateGuard({
    transport,
    keys: randomBytes(32),
    audience: INFO.name,
    principal: callerOf,
    onReject: ({ reason }) => log(`[audit-view] requestState refused (${reason})`),
  });
  const codec = guardedJson(auditState);
  return () => {
    const server = guard.protect(new McpServer(INFO));
    register(server, codec, callerOf);
    return server;
  };
}

const variantOf = (variant: string): Variant => variantIn('audit-view', VARIANTS, variant);

/** The `audit-view` twin. */
export const auditView: ForeignTwin = {
  id: 'audit-view',
  summary: 'A read-only tool that asks for input only for one enum value (detail: "audit")',
  variants: VARIANTS,
  transports: ['http', 'stdio'],
  identity: { http: CARRIER, stdio: CARRIER },
  expected: {
    flawed: {
      'handle/cross-principal': 'skipped',
      'state/tamper': 'confirmed',
      'state/replay-principal': 'confirmed',
      'state/replay-request': 'confirmed',
      // Read-only: nothing to replay after completion.
      'state/replay-after-completion': 'skipped',
      'state/error-oracle': 'refuted',
    },
    fixed: {
      'handle/cross-principal': 'skipped',
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
      path: '/accounts/mcp',
    }),
  serveStdio: (variant) => hostStdio(factoryFor(variantOf(variant), 'stdio', stderrLog), stderrLog),
};
