/**
 * A stdio server (2026-07-28) whose read tool has an optional dangerous slot: `get_page_snapshot`
 * returns a snapshot, and only when its optional `filename` is set it also saves the snapshot on
 * the host, here by appending a line to the file `OPTIONAL_SLOT_SAVED` names. Every call appends
 * the tool's name to the file `OPTIONAL_SLOT_CALLS` names, so a test sees what a scan called and
 * whether it ever set the slot. `create_note`/`get_note` are an ordinary handle pair. Run with
 * `process.execPath --import tsx optional-slot.ts` (writes `[test-server] ready` on stderr).
 */
import { appendFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { createInterface } from 'node:readline';
import type { Incoming } from './mcp-core.js';

const TOOLS = [
  {
    name: 'get_page_snapshot',
    description: 'Returns a text snapshot of the current page.',
    inputSchema: {
      type: 'object',
      properties: {
        depth: { type: 'integer', description: 'How deep the snapshot tree goes.' },
        filename: {
          type: 'string',
          description: 'File name to save the snapshot to, instead of returning it.',
        },
      },
    },
  },
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
  },
];

const log = (variable: string, line: string): void => {
  const file = process.env[variable];
  if (file !== undefined && file !== '') appendFileSync(file, `${JSON.stringify(line)}\n`);
};

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
        _meta: {
          'io.modelcontextprotocol/serverInfo': { name: 'optional-slot', version: '1.0.0' },
        },
      });
    case 'tools/list':
      return ok({ tools: TOOLS });
    case 'tools/call': {
      const name = String(message.params?.name ?? '');
      log('OPTIONAL_SLOT_CALLS', name);
      switch (name) {
        case 'get_page_snapshot':
          if (args.filename !== undefined) {
            // The harm a scanner must never cause: a file written on the host.
            log('OPTIONAL_SLOT_SAVED', String(args.filename));
            return text(`Saved the snapshot to ${String(args.filename)}.`);
          }
          return text('- heading "Welcome"\n- link "Docs"');
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
        default:
          return fail(-32602, 'Unknown tool');
      }
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
