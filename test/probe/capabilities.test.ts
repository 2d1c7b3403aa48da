/**
 * Client capabilities as a mechanism (issue 34): the scanner declares what it answers (forms,
 * sampling, roots), reads a `-32021`'s `requiredCapabilities`, declares what it can honour and asks
 * again once, and otherwise skips naming what it lacks. Real servers on both transports: the SDK's
 * own capability check (test/servers/input-kinds.ts) and hand-written gates
 * (test/servers/capability-gate.ts).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { PROBES } from '../../src/probe/runner/registry.js';
import { runScan } from '../../src/probe/runner/scan.js';
import { openSession } from '../../src/probe/target/session.js';
import { unhonourable, withRequired } from '../../src/probe/target/capabilities.js';
import type { Evidence } from '../../src/probe/model/evidence.js';
import type { ProbeResult } from '../../src/probe/model/report.js';
import type { Target, TransportKind } from '../../src/probe/model/target.js';
import { startInputKindsHttp, type Shape, type Variant } from '../servers/input-kinds.js';
import { startHttpServer } from '../servers/http-server.js';
import { startHostileProxy } from '../servers/hostile-proxy.js';
import { TASK_EXPECTED, taskFixture } from '../../harness/twins/tasks/index.js';
import { startForeign } from '../../harness/twins/foreign/targets.js';
import { sessionOptions, stdioTarget } from './engine/helpers.js';
import { builtPath } from '../helpers/cli.js';

// This run's build of the server (test/helpers/built.ts): no tsx to load each time.
const SERVER = builtPath('test/servers/input-kinds.ts');
const open: { close(): Promise<void> }[] = [];
afterAll(async () => {
  await Promise.all(open.map((s) => s.close()));
});

async function kindsTarget(shape: Shape, variant: Variant, t: TransportKind): Promise<Target> {
  if (t === 'stdio')
    return {
      kind: 'stdio',
      command: process.execPath,
      args: [SERVER, shape, variant],
    };
  const server = await startInputKindsHttp(shape, variant);
  open.push(server);
  return { kind: 'http', url: server.url };
}

async function gateTarget(
  era: 'needs-tasks' | 'needs-telepathy',
  t: TransportKind,
): Promise<Target> {
  if (t === 'stdio') return stdioTarget(era);
  const server = await startHttpServer(era);
  open.push(server);
  return { kind: 'http', url: server.url };
}

async function scan(target: Target, id: string): Promise<ProbeResult> {
  const probes = PROBES.filter((p) => p.id === id);
  // Two busy cores: a slow answer must not read as no decision.
  const run = await runScan({ target, probes, timeoutMs: 30_000, deadlineMs: 120_000 });
  const result = run.probes.find((p) => p.id === id);
  if (result === undefined) throw new Error(`no ${id} result`);
  return result;
}

const sentCapabilities = (e: Evidence): unknown => {
  const body = e.kind === 'http' ? e.request.body : e.kind === 'jsonrpc' ? e.sent : undefined;
  const params = (body as { params?: { _meta?: Record<string, unknown> } } | undefined)?.params;
  return params?._meta?.['io.modelcontextprotocol/clientCapabilities'];
};
const notes = (evidence: readonly Evidence[]): string[] =>
  evidence.flatMap((e) => (e.kind === 'note' ? [e.text] : []));

describe('what can be honoured', () => {
  it('forms, URLs, sampling, roots and the tasks extension; nothing else, each named', () => {
    expect(
      unhonourable({
        elicitation: { form: {}, url: {} },
        sampling: { tools: {} },
        roots: { listChanged: true },
        extensions: { 'io.modelcontextprotocol/tasks': {} },
      }),
    ).toEqual([]);
    expect(
      unhonourable({
        experimental: { 'com.example/telepathy': {} },
        extensions: { 'io.example/ui': {} },
        elicitation: { voice: {} },
      }),
    ).toEqual([
      'experimental.com.example/telepathy',
      'extensions.io.example/ui',
      'elicitation.voice',
    ]);
    expect(unhonourable({})).toEqual(['(an empty requiredCapabilities)']);
  });

  it('declares only the honourable names a server asked for', () => {
    expect(
      withRequired(
        { elicitation: { form: {} } },
        { elicitation: { url: { evil: 1 } }, extensions: { 'io.modelcontextprotocol/tasks': {} } },
      ),
    ).toEqual({
      elicitation: { form: {}, url: {} },
      extensions: { 'io.modelcontextprotocol/tasks': {} },
    });
  });
});

for (const transport of ['http', 'stdio'] as const)
  describe(`over ${transport}`, () => {
    for (const shape of ['sampling', 'url'] as const) {
      it(`${shape} input: state/tamper confirmed on the flawed twin`, async () => {
        const r = await scan(await kindsTarget(shape, 'flawed', transport), 'state/tamper');
        expect(r.verdict, `${r.verdict}: ${r.reason}`).toBe('confirmed');
      }, 180_000);

      it(`${shape} input: state/tamper refuted on the correct twin`, async () => {
        const r = await scan(await kindsTarget(shape, 'correct', transport), 'state/tamper');
        expect(r.verdict, `${r.verdict}: ${r.reason}`).toBe('refuted');
      }, 180_000);
    }

    it('declares sampling and roots on every request', async () => {
      const { session, evidence } = await openSession(
        await kindsTarget('sampling', 'flawed', transport),
        sessionOptions(),
      );
      try {
        expect(sentCapabilities(evidence[0]!)).toEqual({
          elicitation: { form: {} },
          sampling: {},
          roots: {},
        });
      } finally {
        await session.close();
      }
    }, 60_000);

    it('a -32021 asking for the tasks extension: declared, asked again once, recorded', async () => {
      const { session } = await openSession(
        await gateTarget('needs-tasks', transport),
        sessionOptions(),
      );
      try {
        const first = await session.request(
          'tools/call',
          { name: 'echo', arguments: { text: 'hi' } },
          { identity: 'A', label: 'echo' },
        );
        expect(first.outcome.kind).toBe('result');
        expect(first.earlier).toHaveLength(2);
        expect(notes(first.earlier ?? [])).toEqual([
          '-32021 asked for extensions.io.modelcontextprotocol/tasks; declared and asked again once',
        ]);
        expect(sentCapabilities(first.evidence)).toMatchObject({
          extensions: { 'io.modelcontextprotocol/tasks': {} },
        });
        // Declared from now on: the next call passes the gate at once.
        const next = await session.request(
          'tools/call',
          { name: 'echo', arguments: {} },
          { identity: 'B', label: 'echo again' },
        );
        expect(next.outcome.kind).toBe('result');
        expect(next.earlier).toBeUndefined();
      } finally {
        await session.close();
      }
    }, 60_000);

    it('a -32021 asking for what cannot be honoured: one answer, no second try', async () => {
      const { session } = await openSession(
        await gateTarget('needs-telepathy', transport),
        sessionOptions(),
      );
      try {
        const first = await session.request(
          'tools/call',
          { name: 'echo', arguments: {} },
          { identity: 'A', label: 'echo' },
        );
        expect(first.outcome).toMatchObject({ kind: 'error', code: -32021 });
        expect(first.earlier).toBeUndefined();
      } finally {
        await session.close();
      }
    }, 60_000);

    it('the probe skips, naming the capability it lacks', async () => {
      const r = await scan(await gateTarget('needs-telepathy', transport), 'state/tamper');
      expect(r.verdict).toBe('skipped');
      expect(r.reason).toMatch(
        /client capability experimental\.com\.example\/telepathy \(-32021\)/,
      );
    }, 180_000);
  });

describe('a task server that creates tasks only for a client declaring the Tasks extension', () => {
  const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} } };
  for (const variant of ['unbound', 'fixed'] as const)
    it(`decides handle/task-cross-principal on the ${variant} twin as without the gate`, async () => {
      const started = await startForeign(taskFixture, variant, 'http');
      open.push(started);
      if (started.target.kind !== 'http') throw new Error('an HTTP twin');
      const proxy = await startHostileProxy(started.target.url, { fault: 'none', requires: TASKS });
      open.push(proxy);
      const id = 'handle/task-cross-principal';
      const run = await runScan({
        target: { kind: 'http', url: proxy.url },
        probes: PROBES.filter((p) => p.id === id),
        timeoutMs: 30_000,
        deadlineMs: 120_000,
        ...started.options,
      });
      const r = run.probes.find((p) => p.id === id);
      expect(r?.verdict, `${r?.verdict}: ${r?.reason}`).toBe(TASK_EXPECTED[variant][id]);
      // The survey met the gate first; the probe's own calls then declared the extension at once.
      const declared = [...(run.surface?.evidence ?? []), ...(r?.evidence ?? [])].filter(
        (e) =>
          e.kind === 'http' &&
          /\(declaring extensions\.io\.modelcontextprotocol\/tasks\)$/.test(e.label),
      );
      expect(declared).toHaveLength(1);
    }, 180_000);
});
