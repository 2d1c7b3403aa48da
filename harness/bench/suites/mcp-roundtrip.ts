/**
 * Suite "mcp-roundtrip": what the guard adds to a whole flow, end to end. One operation is the
 * `create_report` wizard run to its end (three `tools/call` rounds: ask the dataset, ask the range,
 * create) through the official SDK client, over Streamable HTTP on 127.0.0.1, to the official SDK
 * server behind the SDK's bearer auth, with a fresh server per request as the example serves it.
 *
 * Both contenders run the same tool, the same listener and the same client code in the same run;
 * the only difference is whether the server is protected (state sealed, opened, bound to the
 * principal, the tool and the arguments) or hands its plaintext state to the client.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createReportHttpListener, demoVerifier } from '../../examples/http.js';
import { createStateGuard, type StateGuard } from '../../../src/sdk/index.js';
import {
  compare,
  formatCount,
  formatRatio,
  formatSpread,
  pairedRatio,
  type BenchSuite,
  type Budget,
} from '../harness.js';

/** The goal: the guard adds no more than 10 % to a round trip. */
const GUARD_TARGET = 1.1;
/** Enough rounds for a median and quartiles of the per-round ratios; each holds dozens of flows. */
const ROUNDS = 21;
const ROUND_MS = 500;
const TOKEN = 'bench-user';

/** A "guard" that protects nothing: the same server, unguarded. */
const NO_GUARD: StateGuard = {
  transport: 'http',
  ephemeralKey: false,
  protect: (server) => server,
};

interface Running {
  readonly client: Client;
  close(): Promise<void>;
}

async function serve(guard: StateGuard): Promise<Running> {
  const listener = createReportHttpListener({ guard, verifier: demoVerifier([TOKEN]) });
  const http: HttpServer = createServer(listener);
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = http.address() as AddressInfo;
  const client = new Client(
    { name: 'stateguard-bench', version: '0.0.0' },
    {
      versionNegotiation: { mode: { pin: '2026-07-28' } },
      inputRequired: { autoFulfill: false },
      capabilities: { elicitation: { form: {} } },
    },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`), {
      authProvider: { token: async () => TOKEN },
    }),
  );
  return {
    client,
    async close() {
      await client.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

type Round = Record<string, unknown>;

function call(client: Client, params: Round): Promise<Round> {
  return client.request(
    { method: 'tools/call', params: { name: 'create_report', ...params } },
    { allowInputRequired: true, timeout: 10_000 },
  ) as Promise<Round>;
}

function accept(field: string, value: string): Round {
  return { [`pick_${field}`]: { action: 'accept', content: { [field]: value } } };
}

/** The whole wizard, three rounds; returns the requestStates handed out and the final text. */
async function flow(client: Client): Promise<{ states: unknown[]; text: unknown }> {
  const args = { arguments: { title: 'Q3 review' } };
  const first = await call(client, args);
  const second = await call(client, {
    ...args,
    requestState: first['requestState'],
    inputResponses: accept('dataset', 'sales'),
  });
  const third = await call(client, {
    ...args,
    requestState: second['requestState'],
    inputResponses: accept('range', 'Q3'),
  });
  const content = third['content'] as { text?: unknown }[] | undefined;
  return { states: [first['requestState'], second['requestState']], text: content?.[0]?.text };
}

/** Prove a contender really runs the flow (and is, or is not, sealing) before timing it. */
async function checkFlow(client: Client, sealed: boolean): Promise<void> {
  const { states, text } = await flow(client);
  if (typeof text !== 'string' || !text.endsWith('created.')) throw new Error('flow did not end');
  for (const state of states) {
    if (typeof state !== 'string' || state.startsWith('v1.') !== sealed) {
      throw new Error(`the ${sealed ? 'guarded' : 'unguarded'} server handed out the wrong state`);
    }
  }
}

/** The end-to-end suite. */
export const mcpRoundTripSuite: BenchSuite = {
  name: 'mcp-roundtrip',
  summary: 'a three-round tools/call flow, SDK client → HTTP → SDK server: guarded vs unguarded',
  async run(budget: Budget) {
    const guard = createStateGuard({
      transport: 'http',
      keys: randomBytes(32),
      audience: 'reports',
    });
    const guarded = await serve(guard);
    const plain = await serve(NO_GUARD);
    try {
      await checkFlow(guarded.client, true);
      await checkFlow(plain.client, false);
      const [g, p] = await compare(
        [
          { label: 'guarded (stateguard/sdk)', op: () => flow(guarded.client) },
          { label: 'unguarded (plaintext state)', op: () => flow(plain.client) },
        ],
        { ...budget, rounds: ROUNDS, roundMs: ROUND_MS, clock: 'cpu' },
      );
      if (!g || !p) throw new Error('missing measurement');
      const ratio = pairedRatio(g, p);
      return {
        tables: [
          {
            title: 'one three-round create_report flow, end to end (median of interleaved rounds)',
            columns: ['contender', 'flows/s', 'CPU µs/flow', 'CPU µs/round', 'vs unguarded', 'IQR'],
            rows: [
              [
                g.label,
                formatCount(g.opsPerSec),
                formatCount(g.nsPerOp / 1e3),
                formatCount(g.nsPerOp / 3e3),
                formatRatio(ratio.median),
                formatSpread(ratio),
              ],
              [
                p.label,
                formatCount(p.opsPerSec),
                formatCount(p.nsPerOp / 1e3),
                formatCount(p.nsPerOp / 3e3),
                formatRatio(1),
                '',
              ],
            ],
            notes: [
              'Client and server in this process, Streamable HTTP over loopback, bearer auth, a fresh',
              'McpServer per request; the guarded server seals and opens every state (AES-256-GCM),',
              'bound to principal, tool and arguments. One flow in flight; CPU time of this process (client,',
              'server and HTTP all run here, so a neighbour holding the core cannot inflate it).',
            ],
          },
        ],
        checks: [
          {
            label: 'guarded / unguarded, full three-round flow',
            actual: formatRatio(ratio.median),
            target: `≤ ${formatRatio(GUARD_TARGET)}`,
            met: ratio.median <= GUARD_TARGET,
          },
        ],
      };
    } finally {
      await guarded.close();
      await plain.close();
    }
  },
};
