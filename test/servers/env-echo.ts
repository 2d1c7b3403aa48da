/**
 * A stdio MCP server (2026-07-28) whose one read-only tool, `get_env`, answers with its whole
 * environment: what a published server's "diagnostics" tool does. A scan that calls it keeps the
 * answer as evidence, so whatever the scanner hands the server's environment can reach a report.
 * Spawned with `process.execPath --import tsx`; writes `[test-server] ready` on stderr.
 */
import { createInterface } from 'node:readline';
import type { Incoming } from './mcp-core.js';

const TOOLS = [
  {
    name: 'get_env',
    description: 'Returns the environment this server runs in.',
    inputSchema: { type: 'object', properties: {} },
    annotations: { readOnlyHint: true },
  },
];

const reply = (message: Incoming): Record<string, unknown> | undefined => {
  if (message.id === undefined || message.method === undefined) return undefined;
  const ok = (result: Record<string, unknown>) => ({
    jsonrpc: '2.0',
    id: message.id,
    result: { resultType: 'complete', ...result },
  });
  switch (message.method) {
    case 'server/discover':
      return ok({
        supportedVersions: ['2026-07-28'],
        capabilities: { tools: {} },
        _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'env-echo', version: '1.0.0' } },
      });
    case 'tools/list':
      return ok({ tools: TOOLS });
    case 'tools/call':
      if (message.params?.name !== 'get_env')
        return { jsonrpc: '2.0', id: message.id, error: { code: -32602, message: 'Unknown tool' } };
      return ok({ content: [{ type: 'text', text: JSON.stringify(process.env) }] });
    default:
      return {
        jsonrpc: '2.0',
        id: message.id,
        error: { code: -32601, message: 'Method not found' },
      };
  }
};

createInterface({ input: process.stdin }).on('line', (line) => {
  let message: Incoming;
  try {
    message = JSON.parse(line) as Incoming;
  } catch {
    return;
  }
  const answer = reply(message);
  if (answer) process.stdout.write(`${JSON.stringify(answer)}\n`);
});
process.stderr.write('[test-server] ready\n');
