/**
 * Multi-round tools whose input request is not a form (issue 34), each with a flawed and a correct
 * variant, on both transports: in process over HTTP on 127.0.0.1 port 0 (`startInputKindsHttp`),
 * or as a stdio child (`node --import tsx test/servers/input-kinds.ts <shape> <variant>`). Identity
 * is the bearer token over HTTP and the `_meta` principal over stdio. The SDK checks each input
 * request against the request's declared client capabilities and answers `-32021` when it is not
 * declared.
 *
 * - `sampling`: `draft_reply({ thread })` asks for a `sampling/createMessage` and carries a
 *   base64url JSON state `{ owner, thread, step, tone }`; round 2 drafts the reply as the state's
 *   owner, quoting the sampled text.
 * - `url`: `preview_profile({ provider })` asks the user to visit a URL (`elicitation/create`, mode
 *   `url`, which a client declares apart from forms) and carries the same kind of state.
 *
 * Flawed: the state is trusted as given. Correct: the state carries an HMAC over it, and its owner
 * must be the caller.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import {
  inputRequired,
  inputResponse,
  McpServer,
  type CallToolResult,
  type McpServerFactory,
} from '@modelcontextprotocol/server';
import * as z from 'zod';
import { hostHttp, hostStdio } from '../../harness/twins/foreign/host.js';
import { callerFor, type CallerOf } from '../../harness/twins/foreign/caller.js';
import type { RunningTwin } from '../../harness/twins/foreign/twin.js';

export const SHAPES = ['sampling', 'url'] as const;
export type Shape = (typeof SHAPES)[number];
export type Variant = 'flawed' | 'correct';

const MAX_STATE = 16 * 1024;
const text = (value: string, isError = false): CallToolResult => ({
  content: [{ type: 'text', text: value }],
  ...(isError && { isError }),
});

/** Seals and opens a state: as given (flawed), or under an HMAC (correct). */
function stateCodec(variant: Variant): {
  seal(v: Record<string, unknown>): string;
  open(raw: unknown): Record<string, unknown> | undefined;
} {
  const key = randomBytes(32);
  const mac = (body: string): string => createHmac('sha256', key).update(body).digest('base64url');
  return {
    seal(v) {
      const body = Buffer.from(JSON.stringify(v)).toString('base64url');
      return variant === 'flawed' ? body : `${body}.${mac(body)}`;
    },
    open(raw) {
      if (typeof raw !== 'string' || raw.length > MAX_STATE) return undefined;
      let body = raw;
      if (variant === 'correct') {
        const [b, tag, ...rest] = raw.split('.');
        if (b === undefined || tag === undefined || rest.length > 0) return undefined;
        const expected = Buffer.from(mac(b));
        const given = Buffer.from(tag);
        if (expected.length !== given.length || !timingSafeEqual(expected, given)) return undefined;
        body = b;
      }
      try {
        const v: unknown = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
        return typeof v === 'object' && v !== null && !Array.isArray(v)
          ? (v as Record<string, unknown>)
          : undefined;
      } catch {
        return undefined;
      }
    },
  };
}

/** Registers the shape's tool; `codec` is built once per process (the key outlives each server). */
function register(
  server: McpServer,
  shape: Shape,
  variant: Variant,
  callerOf: CallerOf,
  codec: ReturnType<typeof stateCodec>,
): void {
  const [name, description, arg, step] =
    shape === 'sampling'
      ? (['draft_reply', 'Draft a reply on a thread with the model.', 'thread', 'draft'] as const)
      : ([
          'preview_profile',
          'Preview your profile at a provider after signing in there.',
          'provider',
          'preview',
        ] as const);
  server.registerTool(
    name,
    {
      description,
      inputSchema: z.object({ [arg]: z.string().min(1).max(200) }),
      annotations: { readOnlyHint: true },
    },
    (args, ctx) => {
      const caller = callerOf(ctx);
      const subject = String(args[arg]);
      const raw = ctx.mcpReq.requestState<string>();
      if (raw === undefined) {
        const request =
          shape === 'sampling'
            ? inputRequired.createMessage({
                messages: [
                  { role: 'user', content: { type: 'text', text: `Draft a reply on ${subject}.` } },
                ],
                maxTokens: 200,
              })
            : inputRequired.elicitUrl({
                message: `Sign in at ${subject} to preview your profile.`,
                url: 'https://provider.example/link',
              });
        return inputRequired({
          inputRequests: { go: request },
          requestState: codec.seal({ owner: caller, [arg]: subject, step, tone: 'plain' }),
        });
      }
      const state = codec.open(raw);
      const owner = state?.['owner'];
      if (
        state === undefined ||
        typeof owner !== 'string' ||
        state[arg] !== subject ||
        state['step'] !== step ||
        (variant === 'correct' && owner !== caller)
      )
        return text('This request has expired; start again.', true);
      const answer = inputResponse(ctx.mcpReq.inputResponses, 'go');
      if (answer.kind === 'missing') return text('Nothing was answered.', true);
      const tone = typeof state['tone'] === 'string' ? state['tone'] : 'plain';
      return shape === 'sampling'
        ? text(`Reply on ${subject} drafted for ${owner} in a ${tone} tone.`)
        : text(`Profile at ${subject} of ${owner} (${tone}).`);
    },
  );
}

function factoryFor(shape: Shape, variant: Variant, transport: 'http' | 'stdio'): McpServerFactory {
  const callerOf = callerFor(transport, { kind: 'bearer' });
  const codec = stateCodec(variant);
  return () => {
    const server = new McpServer({ name: `input-kinds-${shape}`, version: '1.0.0' });
    register(server, shape, variant, callerOf, codec);
    return server;
  };
}

/** `shape` in `variant` over HTTP on 127.0.0.1, any free port. */
export function startInputKindsHttp(shape: Shape, variant: Variant): Promise<RunningTwin> {
  return hostHttp({
    factory: factoryFor(shape, variant, 'http'),
    carrier: { kind: 'bearer' },
    path: '/mcp',
  });
}

// Run as a program: from source under tsx, or from the suite's build (test/helpers/built.ts).
const isMain = /input-kinds\.[jt]s$/.test(process.argv[1] ?? '');
if (isMain) {
  const shape = process.argv[2] as Shape;
  const variant = process.argv[3] as Variant;
  if (!SHAPES.includes(shape) || (variant !== 'flawed' && variant !== 'correct')) {
    process.stderr.write('usage: input-kinds.ts <shape> flawed|correct\n');
    process.exit(2);
  }
  void hostStdio(factoryFor(shape, variant, 'stdio'), (line) => process.stderr.write(`${line}\n`));
}
