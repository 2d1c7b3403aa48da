/**
 * A server (2026-07-28, stdio or HTTP on 127.0.0.1) whose one flow sits behind a tool a default scan
 * leaves alone: `refund_order` spends, so the state probes never see its `input_required`. Notes are
 * bound to their owner, so `handle/cross-principal` decides (refuted) and the run is not "nothing
 * decided": the gate must still not pass it. Run with `process.execPath --import tsx`:
 * `left-alone.ts stdio` (writes `[test-server] ready` on stderr) or `left-alone.ts http` (prints its
 * URL on stdout).
 */
import { createServer } from 'node:http';
import type { Incoming } from './mcp-core.js';
import { answersTo, createNotes, discovered, NOTE_TOOLS, serveStdio } from './notes-core.js';

const TOOLS = [
  ...NOTE_TOOLS,
  {
    name: 'refund_order',
    description: 'Refunds an order to the card it was paid with; asks the user to confirm.',
    inputSchema: {
      type: 'object',
      properties: { orderId: { type: 'string' } },
      required: ['orderId'],
    },
    annotations: { destructiveHint: true },
  },
];

/** `--broken`: every tool call answers `-32603 Internal error` (a guard wired to the wrong principal). */
const BROKEN = process.argv.includes('--broken');

const notes = createNotes();

function reply(message: Incoming, caller: string): Record<string, unknown> | undefined {
  if (message.id === undefined || message.method === undefined) return undefined;
  const { ok, fail, args } = answersTo(message);
  switch (message.method) {
    case 'server/discover':
      return discovered(message, 'left-alone');
    case 'tools/list':
      // Broken, it lists no tool left alone: the internal errors alone leave the probes undecided.
      return ok({ tools: BROKEN ? TOOLS.filter((t) => t.name !== 'refund_order') : TOOLS });
    case 'tools/call':
      if (BROKEN) return fail(-32603, 'Internal error');
      switch (message.params?.name) {
        case 'refund_order':
          return {
            jsonrpc: '2.0',
            id: message.id,
            result: {
              resultType: 'input_required',
              inputRequests: {
                confirm: { method: 'elicitation/create', params: { message: 'Refund?' } },
              },
              requestState: Buffer.from(JSON.stringify({ orderId: args.orderId })).toString(
                'base64',
              ),
            },
          };
        default:
          return notes(message, caller) ?? fail(-32602, 'Unknown tool');
      }
    default:
      return fail(-32601, 'Method not found');
  }
}

if (process.argv[2] === 'http') {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const origin = req.headers.origin;
      if (origin !== undefined && !/^https?:\/\/(127\.0\.0\.1|localhost)(:\d+)?$/.test(origin)) {
        res.writeHead(403).end();
        return;
      }
      let message: Incoming;
      try {
        message = JSON.parse(body) as Incoming;
      } catch {
        res.writeHead(400).end();
        return;
      }
      const caller = (req.headers.authorization ?? 'anonymous').replace(/^Bearer /, '');
      const answer = reply(message, caller);
      if (answer === undefined) {
        res.writeHead(202).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
    });
  });
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    if (address !== null && typeof address === 'object')
      process.stdout.write(`http://127.0.0.1:${address.port}/mcp\n`);
  });
} else serveStdio(reply);
