/**
 * What the small hand-written note servers (`left-alone.ts`, `optional-slot.ts`) share: an owner-bound
 * note handle pair, the JSON-RPC answer shapes, the `_meta` principal and the stdio line loop. Each
 * server adds the tool its test is about.
 */
import { randomBytes } from 'node:crypto';
import { createInterface } from 'node:readline';
import type { Incoming } from './mcp-core.js';

/** `create_note` mints a note id for the caller; `get_note` reads it back to its owner only. */
export const NOTE_TOOLS = [
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
];

/** The answer shapes for one request, and its arguments. */
export function answersTo(message: Incoming) {
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
  return { ok, fail, text, args };
}

/** `server/discover`'s answer for a server named `name`. */
export const discovered = (message: Incoming, name: string) =>
  answersTo(message).ok({
    supportedVersions: ['2026-07-28'],
    capabilities: { tools: {} },
    _meta: { 'io.modelcontextprotocol/serverInfo': { name, version: '1.0.0' } },
  });

/** A store of notes and its two tools' answers; undefined for any other tool. */
export function createNotes() {
  const notes = new Map<string, { owner: string; text: string }>();
  return (message: Incoming, caller: string): Record<string, unknown> | undefined => {
    const { ok, text, args } = answersTo(message);
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
      default:
        return undefined;
    }
  };
}

/** The caller a stdio request names in `_meta`, or `anonymous`. */
export const metaPrincipal = (message: Incoming): string => {
  const meta = message.params?._meta as Record<string, unknown> | undefined;
  const p = meta?.['io.modelcontextprotocol/principal'];
  return typeof p === 'string' ? p : 'anonymous';
};

/** Serves `reply` over stdio, one JSON-RPC message a line, and says it is ready on stderr. */
export function serveStdio(
  reply: (message: Incoming, caller: string) => Record<string, unknown> | undefined,
): void {
  createInterface({ input: process.stdin }).on('line', (line) => {
    let message: Incoming;
    try {
      message = JSON.parse(line) as Incoming;
    } catch {
      return;
    }
    const answer = reply(message, metaPrincipal(message));
    if (answer) process.stdout.write(`${JSON.stringify(answer)}\n`);
  });
  process.stderr.write('[test-server] ready\n');
}
