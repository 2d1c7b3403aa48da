/**
 * A legacy-session MCP server built with the official SDK v1 (`@modelcontextprotocol/sdk`): one
 * `StreamableHTTPServerTransport` per session, found by its `Mcp-Session-Id`. With `sequential` it
 * numbers sessions (`mcp-session-000000000001`, …: long, but counting); otherwise it keeps the
 * SDK's default random UUIDs. One `echo` tool. Prints `[legacy] listening <url>` once it listens.
 *   tsx legacy-session-server.ts sequential|random
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

const sequential = process.argv[2] === 'sequential';
let counter = 0;
const nextId = (): string =>
  sequential ? `mcp-session-${String(++counter).padStart(12, '0')}` : randomUUID();

const sessions = new Map<string, StreamableHTTPServerTransport>();
const MAX_BODY = 64 * 1024;

function readBody(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    let text = '';
    req.on('data', (c: Buffer) => {
      text += c.toString('utf8');
      if (text.length > MAX_BODY) req.destroy(new Error('body too large'));
    });
    req.on('end', () => resolve(text === '' ? undefined : (JSON.parse(text) as unknown)));
    req.on('error', reject);
  });
}

async function newSession(): Promise<StreamableHTTPServerTransport> {
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: nextId,
    onsessioninitialized: (id) => void sessions.set(id, transport),
  });
  transport.onclose = () => {
    if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
  };
  const server = new McpServer({ name: 'legacy-sessions', version: '0.0.0' });
  server.registerTool(
    'echo',
    { description: 'Echoes its text.', inputSchema: { text: z.string() } },
    ({ text }) => ({ content: [{ type: 'text', text }] }),
  );
  await server.connect(transport);
  return transport;
}

const http = createServer((req, res) => {
  void (async () => {
    const body = req.method === 'POST' ? await readBody(req) : undefined;
    const id = req.headers['mcp-session-id'];
    const known = typeof id === 'string' ? sessions.get(id) : undefined;
    const transport = known ?? (id === undefined ? await newSession() : undefined);
    if (transport === undefined) {
      res.writeHead(404).end();
      return;
    }
    await transport.handleRequest(req, res, body);
  })().catch(() => {
    if (!res.headersSent) res.writeHead(500).end();
  });
});
http.listen(0, '127.0.0.1', () => {
  const { port } = http.address() as AddressInfo;
  process.stderr.write(`[legacy] listening http://127.0.0.1:${port}/mcp\n`);
});
process.on('SIGTERM', () => process.exit(0));
