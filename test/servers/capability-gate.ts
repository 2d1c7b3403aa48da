/**
 * Two gated targets on the shared core, over HTTP and stdio alike (issue 34): every `tools/call`
 * is answered `-32021 Missing required client capability` unless the request's
 * `io.modelcontextprotocol/clientCapabilities` declares what the gate needs; then the core answers
 * it (the echo tool says what it saw).
 *
 * - `needs-tasks`: the Tasks extension (`extensions["io.modelcontextprotocol/tasks"]`), which the
 *   scanner can honour: it declares it and asks again.
 * - `needs-telepathy`: an experimental capability (`experimental["com.example/telepathy"]`), which
 *   it cannot: what asked for it is skipped, naming the capability.
 */
import type { Incoming } from './mcp-core.js';

/** The gated eras. */
export const GATE_ERAS = ['needs-tasks', 'needs-telepathy'] as const;
/** One of {@link GATE_ERAS}. */
export type GateEra = (typeof GATE_ERAS)[number];

const NEEDS: Record<GateEra, Record<string, Record<string, unknown>>> = {
  'needs-tasks': { extensions: { 'io.modelcontextprotocol/tasks': {} } },
  'needs-telepathy': { experimental: { 'com.example/telepathy': {} } },
};

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The gate's `-32021` to `message`, or undefined when it may pass to the core. */
export function gateAnswer(era: GateEra, message: Incoming): Record<string, unknown> | undefined {
  if (message.id === undefined || message.method !== 'tools/call') return undefined;
  const meta = isRecord(message.params?._meta) ? message.params._meta : {};
  const declared = meta['io.modelcontextprotocol/clientCapabilities'];
  const missing: Record<string, unknown> = {};
  for (const [capability, parts] of Object.entries(NEEDS[era])) {
    const mine = isRecord(declared) ? declared[capability] : undefined;
    const lacking = Object.keys(parts).filter((p) => !isRecord(mine) || !(p in mine));
    if (lacking.length > 0) missing[capability] = Object.fromEntries(lacking.map((p) => [p, {}]));
  }
  if (Object.keys(missing).length === 0) return undefined;
  return {
    jsonrpc: '2.0',
    id: message.id,
    error: {
      code: -32021,
      message: 'Missing required client capability',
      data: { requiredCapabilities: missing },
    },
  };
}
