/**
 * The guard on stdio: the example server as a real child process (`node --import tsx`), driven by
 * the official client over the SDK's stdio transport, and once over the raw wire.
 */
import { randomBytes } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PRINCIPAL_META_KEY } from '../../src/sdk/index.js';
import { attempt, connectStdio } from '../helpers/mcp-client.js';
import { spawnStdio, type StdioChild } from '../helpers/spawn-stdio.js';
import {
  answer,
  completeWizard,
  createReport,
  questionsOf,
  REFUSED,
  stateOf,
  tamper,
} from './flow.js';

const MAIN = 'harness/examples/main.ts';
const KEY = randomBytes(32).toString('base64url');
const opened: { close(): Promise<void> }[] = [];

interface Running {
  client: Client;
  stderr: () => string;
}

async function start(
  env: Record<string, string> = {},
  args: string[] = [],
  elicitation = true,
): Promise<Running> {
  const running = await connectStdio(
    MAIN,
    ['--stdio', ...args],
    { STATEGUARD_KEYS: KEY, ...env },
    { elicitation },
  );
  opened.push(running.client);
  return running;
}

/** The logger hook writes to stderr; a separate pipe, so wait for it (bounded). */
async function logged(running: { stderr: () => string }, text: string): Promise<string> {
  for (let i = 0; i < 250 && !running.stderr().includes(text); i += 1) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return running.stderr();
}

const as = (principal: string) => ({ _meta: { [PRINCIPAL_META_KEY]: principal } });

let main: Running;

beforeAll(async () => {
  main = await start({}, ['--principal-meta']);
});

afterAll(async () => {
  await Promise.allSettled(opened.map((c) => c.close()));
});

describe('the create_report wizard over stdio', () => {
  it('completes over three rounds with the official client', async () => {
    const plain = await start();
    expect(await completeWizard(plain.client)).toBe('Report "Q3 review" on sales for Q3 created.');
    expect(await logged(plain, 'report created')).toContain('[example] report created');
  });

  it('answers -32021 when the client declared no elicitation capability', async () => {
    const mute = await start({}, [], false);
    expect(await createReport(mute.client)).toMatchObject({
      ok: false,
      code: -32021,
      data: { requiredCapabilities: { elicitation: { form: {} } } },
    });
    expect(mute.stderr()).not.toContain('report created');
  });
});

describe('the seed 000 check over stdio', () => {
  it('accepts the untouched state, refuses one changed byte, and logs only the reason', async () => {
    const state = stateOf(await createReport(main.client, as('alice')));
    const tampered = await createReport(main.client, {
      requestState: tamper(state),
      inputResponses: answer('dataset', 'sales'),
      ...as('alice'),
    });
    expect(tampered).toMatchObject(REFUSED);
    const log = await logged(main, 'reason=auth');
    expect(log).toContain(
      'requestState rejected: reason=auth method=tools/call name=create_report',
    );
    expect(log).not.toContain(state.slice(3, 40));
    expect(log).not.toContain('alice');

    const untouched = await createReport(main.client, {
      requestState: state,
      inputResponses: answer('dataset', 'sales'),
      ...as('alice'),
    });
    expect(questionsOf(untouched)).toEqual(['pick_range']);
  });

  it('refuses the state as another principal named in _meta, or with none', async () => {
    const state = stateOf(await createReport(main.client, as('alice')));
    expect(await createReport(main.client, { requestState: state, ...as('bob') })).toMatchObject(
      REFUSED,
    );
    expect(await createReport(main.client, { requestState: state })).toMatchObject(REFUSED);
    expect(await logged(main, 'reason=principal')).toContain('reason=principal');
  });

  it('refuses the state as another principal from the environment', async () => {
    const alice = await start({ STATEGUARD_PRINCIPAL: 'alice' });
    const bob = await start({ STATEGUARD_PRINCIPAL: 'bob' });
    const aliceTwin = await start({ STATEGUARD_PRINCIPAL: 'alice' });
    const state = stateOf(await createReport(alice.client));
    expect(await createReport(bob.client, { requestState: state })).toMatchObject(REFUSED);
    const retry = await createReport(aliceTwin.client, {
      requestState: state,
      inputResponses: answer('dataset', 'sales'),
    });
    expect(questionsOf(retry)).toEqual(['pick_range']);
  });

  it('refuses the state after its expiry (a twin whose clock runs 601 s ahead)', async () => {
    const later = await start({ STATEGUARD_CLOCK_OFFSET_SECONDS: '601' }, ['--principal-meta']);
    const state = stateOf(await createReport(main.client, as('alice')));
    expect(await createReport(later.client, { requestState: state, ...as('alice') })).toMatchObject(
      REFUSED,
    );
    expect(await logged(later, 'reason=expired')).toContain('reason=expired');
  });
});

describe('a state presented for another request over stdio', () => {
  it('is refused by another tool, other arguments, and other methods', async () => {
    const state = stateOf(await createReport(main.client, as('alice')));
    const refusals = await Promise.all([
      attempt(main.client, 'tools/call', {
        name: 'list_datasets',
        arguments: {},
        requestState: state,
        ...as('alice'),
      }),
      createReport(main.client, { requestState: state, ...as('alice') }, { title: 'other' }),
      attempt(main.client, 'prompts/get', {
        name: 'report_brief',
        requestState: state,
        ...as('alice'),
      }),
      attempt(main.client, 'resources/read', {
        uri: 'report://formats',
        requestState: state,
        ...as('alice'),
      }),
    ]);
    for (const outcome of refusals) expect(outcome).toMatchObject(REFUSED);
    // Four refusals, four log lines on another pipe: wait for the one asserted, not the first.
    const line = 'reason=request method=resources/read';
    expect(await logged(main, line)).toContain(line);
  });

  it('is refused by a server of another audience sharing the key', async () => {
    const billing = await start({ STATEGUARD_AUDIENCE: 'billing' }, ['--principal-meta']);
    const state = stateOf(await createReport(main.client, as('alice')));
    expect(
      await createReport(billing.client, { requestState: state, ...as('alice') }),
    ).toMatchObject(REFUSED);
    expect(await logged(billing, 'reason=audience')).toContain('reason=audience');
  });
});

describe('twin and stranger over stdio', () => {
  it('lets a process sharing the key finish the flow and makes one with its own key refuse', async () => {
    const twin = await start({}, ['--principal-meta']);
    const stranger = await start({ STATEGUARD_KEYS: randomBytes(32).toString('base64url') }, [
      '--principal-meta',
    ]);
    const state = stateOf(await createReport(main.client, as('alice')));
    const retry = {
      requestState: state,
      inputResponses: answer('dataset', 'sales'),
      ...as('alice'),
    };
    expect(questionsOf(await createReport(twin.client, retry))).toEqual(['pick_range']);
    expect(await createReport(stranger.client, retry)).toMatchObject(REFUSED);
    expect(await logged(stranger, 'reason=unknown-key')).toContain('reason=unknown-key');
  });
});

describe('the raw stdio wire', () => {
  let child: StdioChild;
  const meta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
  };

  beforeAll(async () => {
    child = await spawnStdio(MAIN, ['--stdio'], { env: { STATEGUARD_KEYS: KEY } });
  });

  afterAll(async () => {
    await child?.close();
  });

  it('carries the SDK error object and nothing else for a refused state', async () => {
    const params = { name: 'create_report', arguments: {}, _meta: meta };
    const first = await child.rpc({ id: 1, method: 'tools/call', params });
    const state = first.result?.['requestState'];
    expect(typeof state).toBe('string');
    const refused = await child.rpc({
      id: 2,
      method: 'tools/call',
      params: { ...params, requestState: tamper(state as string) },
    });
    expect(refused).toEqual({
      jsonrpc: '2.0',
      id: 2,
      error: {
        code: -32602,
        message: 'Invalid or expired requestState',
        data: { reason: 'invalid_request_state' },
      },
    });
  });
});
