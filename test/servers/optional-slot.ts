/**
 * A stdio server (2026-07-28) whose read tool has an optional dangerous slot: `get_page_snapshot`
 * returns a snapshot, and only when its optional `filename` is set it also saves the snapshot on
 * the host, here by appending a line to the file `OPTIONAL_SLOT_SAVED` names. Every call appends
 * the tool's name to the file `OPTIONAL_SLOT_CALLS` names, so a test sees what a scan called and
 * whether it ever set the slot. `create_note`/`get_note` are an ordinary handle pair. Run with
 * `process.execPath --import tsx optional-slot.ts` (writes `[test-server] ready` on stderr).
 */
import { appendFileSync } from 'node:fs';
import type { Incoming } from './mcp-core.js';
import { answersTo, createNotes, discovered, NOTE_TOOLS, serveStdio } from './notes-core.js';

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
  ...NOTE_TOOLS,
];

const log = (variable: string, line: string): void => {
  const file = process.env[variable];
  if (file !== undefined && file !== '') appendFileSync(file, `${JSON.stringify(line)}\n`);
};

const notes = createNotes();

function reply(message: Incoming, caller: string): Record<string, unknown> | undefined {
  if (message.id === undefined || message.method === undefined) return undefined;
  const { ok, fail, text, args } = answersTo(message);
  switch (message.method) {
    case 'server/discover':
      return discovered(message, 'optional-slot');
    case 'tools/list':
      return ok({ tools: TOOLS });
    case 'tools/call': {
      const name = String(message.params?.name ?? '');
      log('OPTIONAL_SLOT_CALLS', name);
      if (name === 'get_page_snapshot') {
        if (args.filename !== undefined) {
          // The harm a scanner must never cause: a file written on the host.
          log('OPTIONAL_SLOT_SAVED', String(args.filename));
          return text(`Saved the snapshot to ${String(args.filename)}.`);
        }
        return text('- heading "Welcome"\n- link "Docs"');
      }
      return notes(message, caller) ?? fail(-32602, 'Unknown tool');
    }
    default:
      return fail(-32601, 'Method not found');
  }
}

serveStdio(reply);
