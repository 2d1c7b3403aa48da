/**
 * A first multi-round tool as tutorials write it, for the experiment tests: run as a stdio child
 * (`node --import tsx test/servers/naive-state.ts <mode>`). Modes:
 * - `json`: the state is `JSON.stringify({ user, note, … })` and round 2 acts on `state.user`;
 * - `print`: round 2 prints the state it received, nothing else (a debug tool);
 * - `never-noisy`: the state is never read back, and every answer carries a clock and a fresh
 *   reference (what varies by itself).
 */
import { randomUUID } from 'node:crypto';
import { McpServer, inputRequired } from '@modelcontextprotocol/server';
import * as z from 'zod';
import { hostStdio } from '../../harness/twins/foreign/host.js';
import { callerFor } from '../../harness/twins/foreign/caller.js';

const mode = process.argv[2] ?? 'json';
const caller = callerFor('stdio', { kind: 'bearer' });

function factory(): McpServer {
  const server = new McpServer({ name: 'naive-state', version: '1.0.0' });
  server.registerTool(
    'plan_trip',
    {
      description: 'Plan a trip after a confirmation.',
      inputSchema: { destination: z.string(), note: z.string().optional() },
      annotations: { readOnlyHint: false, destructiveHint: false },
    },
    (args, ctx) => {
      const raw = ctx.mcpReq.requestState<string>();
      if (raw === undefined)
        return inputRequired({
          inputRequests: {
            go: inputRequired.elicit({
              message: `Plan the trip to ${args.destination}?`,
              requestedSchema: z.object({ confirm: z.boolean() }),
            }),
          },
          requestState: JSON.stringify({
            user: caller(ctx),
            note: args.note ?? '',
            destination: args.destination,
            step: 'confirm',
          }),
        });
      if (mode === 'never-noisy')
        return {
          content: [
            {
              type: 'text' as const,
              text: `Trip planned for ${caller(ctx)} at ${new Date().toISOString()}, reference ${randomUUID()}`,
            },
          ],
        };
      let state: Record<string, unknown>;
      try {
        state = JSON.parse(raw) as Record<string, unknown>;
      } catch {
        return { content: [{ type: 'text' as const, text: 'bad state' }], isError: true };
      }
      const text =
        mode === 'print'
          ? `State received: ${JSON.stringify(state, null, 2)}`
          : `Trip to ${String(state['destination'])} planned for ${String(state['user'])}: ${String(state['note'])}`;
      return { content: [{ type: 'text' as const, text }] };
    },
  );
  return server;
}

await hostStdio(factory as never, (line) => process.stderr.write(`${line}\n`));
