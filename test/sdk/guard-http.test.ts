/**
 * The guard on Streamable HTTP: a real server on 127.0.0.1, the official client, bearer auth through
 * the SDK's `requireBearerAuth`, and an in-process clock the test moves.
 */
import { randomBytes } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { StateRejection } from '../../src/errors.js';
import { createReportHttpListener, demoVerifier } from '../../harness/examples/http.js';
import { createStateGuard, type StateGuardOptions } from '../../src/sdk/index.js';
import { startHttp, type RunningHttp } from '../helpers/http.js';
import { attempt, connectHttp } from '../helpers/mcp-client.js';
import {
  answer,
  completeWizard,
  createReport,
  questionsOf,
  REFUSED,
  stateOf,
  tamper,
  textOf,
} from './flow.js';

const SHARED_KEY = randomBytes(32).toString('base64url');
const TOKENS = ['alice', 'bob'];

interface Instance {
  url: string;
  calls: string[];
  rejections: StateRejection[];
  /** Reports created so far. */
  created(): number;
}

let clockMs = Date.now();
const running: RunningHttp[] = [];
const clients: Client[] = [];

async function instance(overrides: Partial<StateGuardOptions> = {}): Promise<Instance> {
  const calls: string[] = [];
  const rejections: StateRejection[] = [];
  let created = 0;
  const guard = createStateGuard({
    transport: 'http',
    keys: [SHARED_KEY],
    audience: 'reports',
    now: () => clockMs,
    onReject: (event) => rejections.push(event.reason),
    ...overrides,
  });
  const http = await startHttp(
    createReportHttpListener({
      guard,
      verifier: demoVerifier(TOKENS),
      hooks: { onCall: (name) => calls.push(name), onCreate: () => (created += 1) },
    }),
  );
  running.push(http);
  return { url: `${http.url}/mcp`, calls, rejections, created: () => created };
}

async function client(inst: Instance, token = 'alice', elicitation = true): Promise<Client> {
  const c = await connectHttp(inst.url, token, { elicitation });
  clients.push(c);
  return c;
}

let main: Instance;
let alice: Client;

beforeAll(async () => {
  main = await instance();
  alice = await client(main);
});

beforeEach(() => {
  clockMs = Date.now();
});

afterEach(() => {
  main.calls.length = 0;
  main.rejections.length = 0;
});

afterAll(async () => {
  await Promise.allSettled(clients.map((c) => c.close()));
  await Promise.allSettled(running.map((h) => h.close()));
});

describe('the create_report wizard over HTTP', () => {
  it('completes over three rounds and creates the report only on the last', async () => {
    const before = main.created();
    const first = await createReport(alice);
    expect(main.created()).toBe(before);
    const second = await createReport(alice, {
      requestState: stateOf(first),
      inputResponses: answer('dataset', 'sales'),
    });
    expect(questionsOf(second)).toEqual(['pick_range']);
    expect(main.created()).toBe(before);
    const third = await createReport(alice, {
      requestState: stateOf(second),
      inputResponses: answer('range', 'Q3'),
    });
    expect(textOf(third)).toBe('Report "Q3 review" on sales for Q3 created.');
    expect(main.created()).toBe(before + 1);
  });

  it('hands the client a sealed token that does not reveal the answers so far', async () => {
    const first = await createReport(alice);
    const second = await createReport(alice, {
      requestState: stateOf(first),
      inputResponses: answer('dataset', 'sales-canary'),
    });
    const token = stateOf(second);
    expect(token.startsWith('v1.')).toBe(true);
    const decoded = Buffer.from(token.slice(3), 'base64url').toString('latin1');
    expect(decoded).not.toContain('sales-canary');
    expect(token).not.toContain('sales-canary');
  });

  it('asks the same question again when the answer is missing', async () => {
    const first = await createReport(alice);
    const retry = await createReport(alice, { requestState: stateOf(first), inputResponses: {} });
    expect(questionsOf(retry)).toEqual(['pick_dataset']);
  });
});

describe('the flow deadline over HTTP', () => {
  it('restarts the round TTL each round', async () => {
    const first = await createReport(alice);
    clockMs += 500_000;
    const second = await createReport(alice, {
      requestState: stateOf(first),
      inputResponses: answer('dataset', 'sales'),
    });
    // 950 s after round one, but only 450 s after round two.
    clockMs += 450_000;
    const third = await createReport(alice, {
      requestState: stateOf(second),
      inputResponses: answer('range', 'Q3'),
    });
    expect(textOf(third)).toContain('created');
  });

  it('carries the flow deadline over instead of extending it', async () => {
    const short = await instance({ ttlSeconds: 600, flowTtlSeconds: 900 });
    const c = await client(short);
    const first = await createReport(c);
    clockMs += 500_000;
    const second = await createReport(c, {
      requestState: stateOf(first),
      inputResponses: answer('dataset', 'sales'),
    });
    // The second round's own TTL would run to +1100 s; the flow ends at +900 s.
    clockMs += 450_000;
    const third = await createReport(c, {
      requestState: stateOf(second),
      inputResponses: answer('range', 'Q3'),
    });
    expect(third).toMatchObject(REFUSED);
    expect(short.rejections).toEqual(['flow-expired']);
    expect(short.created()).toBe(0);
  });
});

describe('the seed 000 check over HTTP', () => {
  it('accepts the untouched state', async () => {
    const first = await createReport(alice);
    const retry = await createReport(alice, {
      requestState: stateOf(first),
      inputResponses: answer('dataset', 'sales'),
    });
    expect(questionsOf(retry)).toEqual(['pick_range']);
    expect(main.rejections).toEqual([]);
  });

  it('refuses a state with one byte changed, before the handler runs, and logs "auth"', async () => {
    const state = stateOf(await createReport(alice));
    main.calls.length = 0;
    const retry = await createReport(alice, {
      requestState: tamper(state),
      inputResponses: answer('dataset', 'sales'),
    });
    expect(retry).toMatchObject(REFUSED);
    expect(main.calls).toEqual([]);
    expect(main.rejections).toEqual(['auth']);
  });

  it('refuses the same state after its expiry and logs "expired"', async () => {
    const state = stateOf(await createReport(alice));
    clockMs += 601_000;
    const retry = await createReport(alice, { requestState: state });
    expect(retry).toMatchObject(REFUSED);
    expect(main.rejections).toEqual(['expired']);
  });

  it('refuses the same state presented by another user and logs "principal"', async () => {
    const state = stateOf(await createReport(alice));
    const bob = await client(main, 'bob');
    main.calls.length = 0;
    const retry = await createReport(bob, { requestState: state });
    expect(retry).toMatchObject(REFUSED);
    expect(main.calls).toEqual([]);
    expect(main.rejections).toEqual(['principal']);
  });

  it('answers the refusal in-band with HTTP 200 and the SDK data, nothing more', async () => {
    const state = stateOf(await createReport(alice));
    const response = await fetch(main.url, {
      method: 'POST',
      headers: {
        authorization: 'Bearer alice',
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': 'create_report',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: {
          name: 'create_report',
          arguments: { title: 'Q3 review' },
          requestState: tamper(state),
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
          },
        },
      }),
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      jsonrpc: '2.0',
      id: 7,
      error: {
        code: -32602,
        message: 'Invalid or expired requestState',
        data: { reason: 'invalid_request_state' },
      },
    });
  });
});

describe('a state presented for another request over HTTP', () => {
  it('is refused by another tool, whose handler never runs', async () => {
    const state = stateOf(await createReport(alice));
    main.calls.length = 0;
    const outcome = await attempt(alice, 'tools/call', {
      name: 'list_datasets',
      arguments: {},
      requestState: state,
    });
    expect(outcome).toMatchObject(REFUSED);
    expect(main.calls).toEqual([]);
    expect(main.rejections).toEqual(['request']);
  });

  it('is refused with other arguments', async () => {
    const state = stateOf(await createReport(alice));
    const retry = await createReport(alice, { requestState: state }, { title: 'Q4 review' });
    expect(retry).toMatchObject(REFUSED);
    expect(main.rejections).toEqual(['request']);
  });

  it('is refused by prompts/get and resources/read', async () => {
    const state = stateOf(await createReport(alice));
    main.calls.length = 0;
    const prompt = await attempt(alice, 'prompts/get', {
      name: 'report_brief',
      requestState: state,
    });
    const resource = await attempt(alice, 'resources/read', {
      uri: 'report://formats',
      requestState: state,
    });
    expect(prompt).toMatchObject(REFUSED);
    expect(resource).toMatchObject(REFUSED);
    expect(main.calls).toEqual([]);
    expect(main.rejections).toEqual(['request', 'request']);
  });

  it('is refused by a server of another audience sharing the key', async () => {
    const state = stateOf(await createReport(alice));
    const other = await instance({ audience: 'billing' });
    const retry = await createReport(await client(other), { requestState: state });
    expect(retry).toMatchObject(REFUSED);
    expect(other.rejections).toEqual(['audience']);
  });
});

describe('states that never open over HTTP, whatever their content', () => {
  it('refuses an oversized token before decoding it, running no handler', async () => {
    main.calls.length = 0;
    const retry = await createReport(alice, { requestState: `v1.${'A'.repeat(9_000)}` });
    expect(retry).toMatchObject(REFUSED);
    expect(main.calls).toEqual([]);
    expect(main.rejections).toEqual(['too-large']);
  });

  it('refuses every re-encoding of a valid token as "malformed"', async () => {
    const state = stateOf(await createReport(alice));
    const body = state.slice(3);
    const respellings = [
      `${state}=`,
      `${state}\n`,
      ` ${state}`,
      `v1.${body.replaceAll('-', '+').replaceAll('_', '/')}`,
      `V1.${body}`,
    ].filter((t) => t !== state);
    // At least padding, whitespace and the prefix; the alphabet swap only if the body has - or _.
    expect(respellings.length).toBeGreaterThanOrEqual(4);
    main.calls.length = 0;
    for (const requestState of respellings) {
      expect(await createReport(alice, { requestState })).toMatchObject(REFUSED);
    }
    expect(main.calls).toEqual([]);
    expect(main.rejections).toEqual(respellings.map(() => 'malformed'));
    // The canonical spelling still opens.
    const retry = await createReport(alice, {
      requestState: state,
      inputResponses: answer('dataset', 'sales'),
    });
    expect(questionsOf(retry)).toEqual(['pick_range']);
  });
});

describe('key rotation over HTTP: [old, new] → [new, old] → [new]', () => {
  it('loses no flow in flight until the last phase, which refuses old tokens as "unknown-key"', async () => {
    const OLD = randomBytes(32);
    const NEW = randomBytes(32);
    const phase1 = await instance({ keys: [OLD, NEW] });
    const phase2 = await instance({ keys: [NEW, OLD] });
    const phase3 = await instance({ keys: [NEW] });
    // One flow crosses the rollout: round 1 on phase 1, round 2 on phase 2, round 3 on phase 3.
    const round1 = stateOf(await createReport(await client(phase1)));
    const round2 = await createReport(await client(phase2), {
      requestState: round1,
      inputResponses: answer('dataset', 'sales'),
    });
    expect(questionsOf(round2)).toEqual(['pick_range']);
    const round3 = await createReport(await client(phase3), {
      requestState: stateOf(round2),
      inputResponses: answer('range', 'Q3'),
    });
    expect(textOf(round3)).toBe('Report "Q3 review" on sales for Q3 created.');
    // A round-1 token (sealed with the old key) still held by a slow client: the only casualty.
    const stale = stateOf(await createReport(await client(phase1)));
    const phase2Client = await client(phase2);
    expect(questionsOf(await createReport(phase2Client, { requestState: stale }))).toEqual([
      'pick_dataset',
    ]);
    expect(await createReport(await client(phase3), { requestState: stale })).toMatchObject(
      REFUSED,
    );
    expect(phase3.rejections).toEqual(['unknown-key']);
    expect(phase3.created()).toBe(1);
  });
});

describe('prompts/get is guarded like tools/call', () => {
  it('seals the prompt state and accepts its own echo', async () => {
    const first = await attempt(alice, 'prompts/get', { name: 'report_brief' });
    const state = stateOf(first);
    const done = await attempt(alice, 'prompts/get', {
      name: 'report_brief',
      requestState: state,
      inputResponses: answer('dataset', 'traffic'),
    });
    expect(done).toMatchObject({ ok: true, result: { messages: [{ role: 'user' }] } });
    const tampered = await attempt(alice, 'prompts/get', {
      name: 'report_brief',
      requestState: tamper(state),
    });
    expect(tampered).toMatchObject(REFUSED);
  });
});

describe('twin and stranger over HTTP', () => {
  it('lets a second instance sharing the key finish the flow', async () => {
    const twin = await instance();
    const state = stateOf(await createReport(alice));
    const retry = await createReport(await client(twin), {
      requestState: state,
      inputResponses: answer('dataset', 'sales'),
    });
    expect(questionsOf(retry)).toEqual(['pick_range']);
  });

  it('makes an instance with its own key refuse, logging "unknown-key"', async () => {
    const stranger = await instance({ keys: [randomBytes(32)] });
    const state = stateOf(await createReport(alice));
    const retry = await createReport(await client(stranger), { requestState: state });
    expect(retry).toMatchObject(REFUSED);
    expect(stranger.rejections).toEqual(['unknown-key']);
  });
});

describe('the client capability check over HTTP', () => {
  it('answers -32021 when the client declared no elicitation capability', async () => {
    const mute = await client(main, 'alice', false);
    const before = main.created();
    const outcome = await createReport(mute);
    expect(outcome).toMatchObject({
      ok: false,
      code: -32021,
      data: { requiredCapabilities: { elicitation: { form: {} } } },
    });
    expect(main.created()).toBe(before);
  });
});

describe('the whole wizard against a fresh instance', () => {
  it('runs end to end with the official client', async () => {
    const fresh = await instance();
    expect(await completeWizard(await client(fresh, 'bob'))).toBe(
      'Report "Q3 review" on sales for Q3 created.',
    );
  });
});
