/**
 * `event-wizard`: a three-question event planner whose states look protected and are not, in two
 * shapes a scanner that changes only round 1's state, or only a token's claims, misses.
 *
 * `plan_event({ title })` asks which day, then which room, then to confirm, and answers "Event <title>
 * planned for <sub> on <day> in the <room>." from the last round's state. `round3-plain`: rounds 1
 * and 2 sealed by stateguard, round 3 plain JSON believed. `jws-none`: HS256 JWS states whose
 * verifier accepts `alg: none`. `fixed`: every round sealed and bound by `createStateGuard`, each
 * opened once. Identity: bearer over HTTP, the `_meta` principal over stdio. See codecs.ts.
 */
import { randomBytes } from 'node:crypto';
import {
  acceptedContent,
  inputRequired,
  McpServer,
  type McpServerFactory,
  type ServerContext,
} from '@modelcontextprotocol/server';
import * as z from 'zod';
import { createMemoryLedger } from '../../../../src/ledger/memory.js';
import { createStateGuard } from '../../../../src/sdk/guard.js';
import { quietLog, stderrLog, type FixtureLog } from '../../../../src/fixture/log.js';
import { callerFor, type CallerOf } from '../caller.js';
import { hostHttp, hostStdio } from '../host.js';
import { variantIn, type ForeignTwin, type IdentityCarrier } from '../twin.js';
import {
  guarded,
  jwsNone,
  round3Plain,
  TOOL,
  type EventCall,
  type EventCodec,
  type EventState,
} from './codecs.js';

const VARIANTS = ['round3-plain', 'jws-none', 'fixed'] as const;
type Variant = (typeof VARIANTS)[number];
const NAME = 'event-wizard';
const STDIO_CARRIER: IdentityCarrier = { kind: 'bearer' };
const DAYS = ['friday', 'saturday', 'sunday'] as const;
const ROOMS = ['garden', 'library', 'rooftop'] as const;
const EXPIRED = 'This planning session has expired. Please start again.';

const daySchema = z.object({ day: z.enum(DAYS).describe('The day of the event') });
const roomSchema = z.object({ room: z.enum(ROOMS).describe('The room to hold it in') });
const confirmSchema = z.object({ confirm: z.boolean().describe('true to plan it') });

function text(value: string, isError = false) {
  return { content: [{ type: 'text' as const, text: value }], ...(isError && { isError }) };
}

function ask(key: string, message: string, schema: z.ZodObject, requestState: string) {
  return inputRequired({
    inputRequests: { [key]: inputRequired.elicit({ message, requestedSchema: schema }) },
    requestState,
  });
}

/** One round of `plan_event`: which question comes next is the state's `step`. */
function planEvent(
  args: { title: string },
  ctx: ServerContext,
  deps: { codec: EventCodec; callerOf: CallerOf },
) {
  const call: EventCall = { caller: deps.callerOf(ctx), args };
  const state = deps.codec.read(ctx.mcpReq.requestState<string>(), call);
  if (state === null) return text(EXPIRED, true);
  const write = (next: EventState) => deps.codec.write(next, call);
  if (state === undefined) {
    const first: EventState = { sub: call.caller, title: args.title, step: 'day' };
    return ask('day', `Which day is "${args.title}"?`, daySchema, write(first));
  }
  const responses = ctx.mcpReq.inputResponses;
  if (state.step === 'day') {
    const day = acceptedContent(responses, 'day', daySchema)?.day;
    if (day === undefined) return text('Event planning cancelled.');
    return ask('room', `Which room on ${day}?`, roomSchema, write({ ...state, day, step: 'room' }));
  }
  if (state.step === 'room') {
    const room = acceptedContent(responses, 'room', roomSchema)?.room;
    if (room === undefined) return text('Event planning cancelled.');
    const next: EventState = { ...state, room, step: 'confirm' };
    return ask(
      'confirm',
      `Plan "${state.title}" on ${state.day} in the ${room}?`,
      confirmSchema,
      write(next),
    );
  }
  if (state.step === 'confirm') {
    if (acceptedContent(responses, 'confirm', confirmSchema)?.confirm !== true)
      return text('Event planning cancelled.');
    return text(
      `Event "${String(state.title)}" planned for ${String(state.sub)} on ${String(state.day)} in the ${String(state.room)}.`,
    );
  }
  return text(EXPIRED, true);
}

function factoryFor(
  variant: Variant,
  transport: 'http' | 'stdio',
  log: FixtureLog,
): McpServerFactory {
  const callerOf = callerFor(transport, STDIO_CARRIER);
  const keys = randomBytes(32);
  const codec =
    variant === 'round3-plain'
      ? round3Plain(keys)
      : variant === 'jws-none'
        ? jwsNone(keys)
        : guarded();
  const guard =
    variant === 'fixed'
      ? createStateGuard({
          transport,
          keys,
          audience: NAME,
          principal: callerOf,
          singleUse: { ledger: createMemoryLedger({ maxEntries: 10_000 }), tools: [TOOL] },
          onReject: ({ reason }) => log(`[event-wizard] requestState refused (${reason})`),
        })
      : undefined;
  return () => {
    const server = new McpServer({ name: NAME, version: '1.4.0' });
    guard?.protect(server);
    server.registerTool(
      TOOL,
      {
        title: 'Plan an event',
        description: 'Plans a team event: asks the day, the room, then to confirm.',
        inputSchema: z.object({ title: z.string().min(1).max(200).describe('What the event is') }),
        annotations: {
          readOnlyHint: false,
          destructiveHint: false,
          idempotentHint: false,
          openWorldHint: false,
        },
      },
      (args, ctx) => planEvent(args, ctx, { codec, callerOf }),
    );
    return server;
  };
}

const checked = (variant: string): Variant => variantIn(NAME, VARIANTS, variant);

export const eventWizard: ForeignTwin = {
  id: NAME,
  summary:
    'A three-question event planner: round 3 in plain JSON after two sealed rounds; JWS with alg none',
  variants: VARIANTS,
  transports: ['http', 'stdio'],
  identity: { http: { kind: 'bearer' }, stdio: STDIO_CARRIER },
  expected: {
    // Round 3's plain state is every state probe's flaw; rounds 1-2 hide it from round-1 mutations.
    'round3-plain': {
      'handle/cross-principal': 'skipped',
      'state/tamper': 'confirmed',
      'state/replay-principal': 'confirmed',
      'state/replay-request': 'confirmed',
      'state/replay-after-completion': 'confirmed',
      'state/error-oracle': 'refuted',
    },
    // A valid token of A's is honoured for B (sub is A), and alg none lets anyone write the claims.
    'jws-none': {
      'handle/cross-principal': 'skipped',
      'state/tamper': 'confirmed',
      'state/replay-principal': 'confirmed',
      'state/replay-request': 'confirmed',
      'state/replay-after-completion': 'confirmed',
      'state/error-oracle': 'refuted',
    },
    fixed: {
      'handle/cross-principal': 'skipped',
      'state/tamper': 'refuted',
      'state/replay-principal': 'refuted',
      'state/replay-request': 'refuted',
      'state/replay-after-completion': 'refuted',
      'state/error-oracle': 'refuted',
    },
  },
  startHttp: (variant) =>
    hostHttp({
      factory: factoryFor(checked(variant), 'http', quietLog),
      carrier: { kind: 'bearer' },
      path: '/events/mcp',
    }),
  serveStdio: (variant) => hostStdio(factoryFor(checked(variant), 'stdio', stderrLog), stderrLog),
};
