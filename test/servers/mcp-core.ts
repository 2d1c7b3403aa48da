/**
 * The answers of a tiny hand-written MCP server, shared by the HTTP and stdio test servers. It
 * speaks just enough of 2026-07-28 (or, as `legacy`, of 2025-11-25) for the engine's tests; each
 * misbehaviour lives in the server that wraps it.
 */

import { AGREEABLE, agreeableAnswer, type Agreeable } from './agreeable.js';
import { HOSTILE_ERAS, hostileAnswer, type HostileEra } from './hostile-target.js';
import { GATE_ERAS, gateAnswer, type GateEra } from './capability-gate.js';

/** A JSON-RPC message as received. */
export interface Incoming {
  readonly jsonrpc?: string;
  readonly id?: number | string;
  readonly method?: string;
  readonly params?: Record<string, unknown>;
}

/** Which era the core plays; the agreeable ones are modern servers that agree with everything. */
export type Era = 'modern' | 'modern-no-discover' | 'legacy' | Agreeable | HostileEra | GateEra;

/** Tools the core lists; `delete_everything` is there so tests can prove it is never called. */
export const TOOLS = [
  {
    name: 'echo',
    description: 'Echoes its arguments, its _meta and the caller it saw.',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
  },
  {
    name: 'delete_everything',
    description: 'Deletes every record.',
    inputSchema: { type: 'object', properties: {} },
    annotations: { destructiveHint: true },
  },
];

/** Calls per tool name, so tests can count what the scanner called. */
export type CallCounts = Record<string, number>;

/** The JSON-RPC answer of the core to `message`, or undefined for a notification. */
export function answer(
  message: Incoming,
  era: Era,
  caller: string | undefined,
  counts: CallCounts,
): Record<string, unknown> | undefined {
  if ((HOSTILE_ERAS as readonly string[]).includes(era))
    return hostileAnswer(
      era as HostileEra,
      message,
      (caller ?? 'anonymous').replace(/^Bearer /, ''),
      counts,
    );
  if (message.id === undefined) return undefined;
  if ((GATE_ERAS as readonly string[]).includes(era)) {
    const gated = gateAnswer(era as GateEra, message);
    if (gated !== undefined) return gated;
  }
  if ((AGREEABLE as readonly string[]).includes(era)) {
    if (message.method === 'tools/call') {
      const name = String(message.params?.name ?? '');
      counts[name] = (counts[name] ?? 0) + 1;
    }
    const kind = era as Agreeable;
    return agreeableAnswer(kind, message, (caller ?? 'anonymous').replace(/^Bearer /, ''));
  }
  const ok = (result: Record<string, unknown>) => ({ jsonrpc: '2.0', id: message.id, result });
  const err = (code: number, text: string) => ({
    jsonrpc: '2.0',
    id: message.id,
    error: { code, message: text },
  });
  const modern = era !== 'legacy';
  const stamp = modern ? { resultType: 'complete' } : {};
  switch (message.method) {
    case 'server/discover':
      if (era !== 'modern') return err(-32601, 'Method not found');
      return ok({
        ...stamp,
        supportedVersions: ['2026-07-28'],
        capabilities: { tools: {} },
        _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'tiny', version: '1.0.0' } },
      });
    case 'initialize':
      if (modern) return err(-32022, 'Unsupported protocol version');
      // A dual-era server picks the era from the envelope: initialize framed as modern is unknown.
      if (
        (message.params?._meta as Record<string, unknown> | undefined)?.[
          'io.modelcontextprotocol/protocolVersion'
        ]
      ) {
        return err(-32601, 'Method not found');
      }
      return ok({
        protocolVersion: '2025-11-25',
        capabilities: { tools: {} },
        serverInfo: { name: 'tiny-legacy', version: '0.9.0' },
      });
    case 'tools/list':
      return ok({ ...stamp, tools: TOOLS });
    case 'tools/call': {
      const name = String(message.params?.name ?? '');
      counts[name] = (counts[name] ?? 0) + 1;
      if (!TOOLS.some((t) => t.name === name)) return err(-32602, `Tool ${name} not found`);
      const seen = { arguments: message.params?.arguments, meta: message.params?._meta, caller };
      return ok({ ...stamp, content: [{ type: 'text', text: JSON.stringify(seen) }] });
    }
    default:
      return err(-32601, 'Method not found');
  }
}
