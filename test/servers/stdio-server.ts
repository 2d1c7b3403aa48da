/**
 * A small real stdio MCP server whose misbehaviour is picked by its first argument. Spawned by
 * tests with `process.execPath --import tsx`; writes `[test-server] ready` on stderr.
 *
 * Scenarios: modern, modern-no-discover, legacy, hang, hang-stubborn (ignores SIGTERM and EOF),
 * slow-start (reads nothing for 1.5 s, like a server that compiles or downloads itself first),
 * slow-calls (answers every tools/call after 1.5 s, longer than a short --deadline's survey),
 * garbage (exits after answering a tools/call with garbage), crash-mid-answer, request-first, huge-line, nested, stderr-echo; and the agreeable
 * servers `yes`, `echo` and `echo-pretty` (see `agreeable.ts`); the hostile targets `hostile`,
 * `risky` and `markup` (see `hostile-target.ts`); the gated `needs-tasks` and `needs-telepathy`
 * (see `capability-gate.ts`).
 */
import { createInterface } from 'node:readline';
import { AGREEABLE } from './agreeable.js';
import { EVIL, HOSTILE_ERAS } from './hostile-target.js';
import { GATE_ERAS } from './capability-gate.js';
import { answer } from './mcp-core.js';
import type { CallCounts, Era, Incoming } from './mcp-core.js';

const scenario = process.argv[2] ?? 'modern';
const ERAS: readonly string[] = [
  'legacy',
  'modern-no-discover',
  ...AGREEABLE,
  ...HOSTILE_ERAS,
  ...GATE_ERAS,
];
const era: Era = ERAS.includes(scenario) ? (scenario as Era) : 'modern';
const counts: CallCounts = {};
const out = (message: unknown): void => {
  process.stdout.write(`${JSON.stringify(message)}\n`);
};

if (scenario === 'hang' || scenario === 'hang-stubborn') setInterval(() => undefined, 1000);
if (scenario === 'hang-stubborn') process.on('SIGTERM', () => undefined);

const serve = (line: string): void => {
  let message: Incoming;
  try {
    message = JSON.parse(line) as Incoming;
  } catch {
    return;
  }
  if (scenario === 'hang' || scenario === 'hang-stubborn') return;
  if (message.method === undefined) return; // our answers to the server's requests
  const meta = message.params?._meta as Record<string, unknown> | undefined;
  const caller =
    typeof meta?.['io.modelcontextprotocol/principal'] === 'string'
      ? (meta['io.modelcontextprotocol/principal'] as string)
      : undefined;
  const reply = answer(message, era, caller, counts);
  if (!reply) return;
  if (scenario === 'garbage') {
    // A tools/call gets the garbage and then the end of the stream, so a test can wait for the close
    // (which comes after every line written before it) instead of for a timeout.
    const end = message.method === 'tools/call' ? () => process.exit(0) : undefined;
    process.stdout.write('this is not json\n<html>500</html>\n', end);
    return;
  }
  if (message.method === 'tools/call') {
    if (scenario === 'crash-mid-answer') {
      process.stdout.write(JSON.stringify(reply).slice(0, 20), () => process.exit(3));
      return;
    }
    if (scenario === 'huge-line') {
      process.stdout.write(
        `{"jsonrpc":"2.0","id":${JSON.stringify(message.id)},"result":{"pad":"${'x'.repeat(2 * 1024 * 1024)}"}}\n`,
      );
      return;
    }
    if (scenario === 'nested') {
      const depth = 200_000;
      process.stdout.write(
        `{"jsonrpc":"2.0","id":${JSON.stringify(message.id)},"result":{"deep":${'['.repeat(depth)}${']'.repeat(depth)}}}\n`,
      );
      return;
    }
    if (scenario === 'slow-calls') {
      setTimeout(() => out(reply), 1500);
      return;
    }
    if (scenario === 'stderr-echo') process.stderr.write(`serving caller ${caller ?? 'nobody'}\n`);
    if (scenario === 'hostile') process.stderr.write(`serving ${EVIL}\n`);
  }
  if (scenario === 'request-first') {
    // A server→client request that reuses the client's id, then a notification, then the answer.
    out({ jsonrpc: '2.0', id: message.id, method: 'roots/list', params: {} });
    out({ jsonrpc: '2.0', method: 'notifications/progress', params: { progress: 1 } });
  }
  out(reply);
};
const listen = (): void => {
  const lines = createInterface({ input: process.stdin });
  lines.on('line', serve);
  lines.on('close', () => {
    if (scenario !== 'hang-stubborn') process.exit(0);
  });
  process.stderr.write(`[test-server] ready pid=${process.pid}\n`);
};
if (scenario === 'slow-start') setTimeout(listen, 1500);
else listen();
