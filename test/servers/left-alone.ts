/**
 * A server (2026-07-28, stdio or HTTP on 127.0.0.1) whose one flow sits behind a tool a default scan
 * leaves alone: `refund_order` spends, so the state probes never see its `input_required`. Notes are
 * bound to their owner, so `handle/cross-principal` decides (refuted) and the run is not "nothing
 * decided": the gate must still not pass it. Run with `process.execPath --import tsx`:
 * `left-alone.ts stdio` (writes `[test-server] ready` on stderr) or `left-alone.ts http` (prints its
 * URL on stdout).
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { createInterface } from 'node:readline';
import type { Incoming } from './mcp-core.js';

const TOOLS = [
  {
    name: 'create_note',
    description: 'Creates a note for the caller and returns its id.',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
  },
  {
    name: 'get_note',
    description: "Returns one of the caller's notes.",
    inputSchema: {
      type: 'object',
      properties: { noteId: { type: 'string' } },
      required: ['noteId'],
    },
    annotations: { readOnlyHint: true },
  },
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

const notes = new Map<string, { owner: string; text: string }>();

function reply(message: Incoming, caller: string): Record<string, unknown> | undefined {
  if (message.id === undefined || message.method === undefined) return undefined;
  const ok = (result: Record<string, unknown>) => ({
    jsonrpc: '2.0',
    id: message.id,
    result: { resultType: 'complete', ...result },
  });
  const fail = (code: number, text: string) => ({
    jsonrpc: '2.0',
    id: message.id,
    error: { code, message: text },
  });
  const text = (t: string, isError = false) =>
    ok({ content: [{ type: 'text', text: t }], ...(isError ? { isError: true } : {}) });
  const args = (message.params?.arguments ?? {}) as Record<string, unknown>;
  switch (message.method) {
    case 'server/discover':
      return ok({
        supportedVersions: ['2026-07-28'],
        capabilities: { tools: {} },
        _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'left-alone', version: '1.0.0' } },
      });
    case 'tools/list':
      // Broken, it lists no tool left alone: the internal errors alone leave the probes undecided.
      return ok({ tools: BROKEN ? TOOLS.filter((t) => t.name !== 'refund_order') : TOOLS });
    case 'tools/call':
      if (BROKEN) return fail(-32603, 'Internal error');
      switch (message.params?.name) {
        case 'create_note': {
          const id = `note-${randomBytes(12).toString('hex')}`;
          notes.set(id, { owner: caller, text: String(args.text ?? '') });
          return ok({
            content: [{ type: 'text', text: JSON.stringify({ noteId: id }) }],
            structuredContent: { noteId: id },
          });
        }
        case 'get_note': {
          const note = notes.get(String(args.noteId ?? ''));
          if (note === undefined || note.owner !== caller) return text('Note not found.', true);
          return text(JSON.stringify({ text: note.text }));
        }
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
          return fail(-32602, 'Unknown tool');
      }
    default:
      return fail(-32601, 'Method not found');
  }
}

const principal = (message: Incoming): string => {
  const meta = message.params?._meta as Record<string, unknown> | undefined;
  const p = meta?.['io.modelcontextprotocol/principal'];
  return typeof p === 'string' ? p : 'anonymous';
};

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
} else {
  createInterface({ input: process.stdin }).on('line', (line) => {
    let message: Incoming;
    try {
      message = JSON.parse(line) as Incoming;
    } catch {
      return;
    }
    const answer = reply(message, principal(message));
    if (answer) process.stdout.write(`${JSON.stringify(answer)}\n`);
  });
  process.stderr.write('[test-server] ready\n');
}
