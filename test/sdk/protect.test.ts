/**
 * The guard on a real low-level `Server`, driven through the door every guarded method can take:
 * the public `fallbackRequestHandler` (test/sdk/guard-fail-closed.test.ts runs the same door over
 * HTTP). Calling it directly, with the context the SDK would pass, reaches the edges a client
 * cannot: raw requests the SDK did not validate, a clock that moves between two readings of one
 * request, and transports told apart by `ctx.http`.
 */
import {
  inputRequired,
  McpServer,
  ProtocolError,
  Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import type { StateRejection } from '../../src/errors.js';
import { createMemoryLedger } from '../../src/ledger/memory.js';
import { createStateSealer } from '../../src/seal/seal.js';
import { createStateGuard, type StateGuardOptions } from '../../src/sdk/index.js';

const KEY = 'k'.repeat(32);
const AT = 1_800_000_000_000;
const INVALID = { code: -32602, message: 'Invalid or expired requestState' };
const INTERNAL = { code: -32603, message: 'Internal error' };

interface Request {
  method?: string;
  params?: Record<string, unknown>;
}
type Handler = (request: Request, ctx: ServerContext) => unknown;

/** The context the SDK passes a handler: the echoed state, and `http` on an HTTP transport. */
const context = (state?: unknown, http?: object): ServerContext =>
  ({ mcpReq: { requestState: () => state }, http }) as unknown as ServerContext;

/** A protected low-level server whose fallback runs `handler`; returns the guarded door. */
function guarded(options: Partial<StateGuardOptions>, handler: Handler) {
  const reasons: StateRejection[] = [];
  const guard = createStateGuard({
    transport: 'stdio',
    keys: KEY,
    audience: 'pay',
    onReject: (event) => reasons.push(event.reason),
    ...options,
  } as StateGuardOptions);
  const server = guard.protect(new Server({ name: 'pay', version: '1.0.0' }));
  server.fallbackRequestHandler = handler as never;
  const door = server.fallbackRequestHandler as unknown as Handler;
  return {
    reasons,
    call: async (request: Request, ctx: ServerContext = context()) => {
      try {
        return { ok: true, result: await door(request, ctx) };
      } catch (error) {
        if (!(error instanceof ProtocolError)) throw error;
        return { ok: false, code: error.code, message: error.message };
      }
    },
  };
}

/** A token for `pay` as the guard itself would seal it (no principal), issued at `AT`. */
const tokenFor = (name: string, args: unknown = {}, method = 'tools/call') =>
  createStateSealer({ keys: KEY, audience: 'pay', now: () => AT }).seal(
    { step: 2 },
    {
      method,
      name,
      args,
    },
  );

/** A clock that gives `readings` in turn, then keeps giving the last. */
function clock(...readings: number[]): () => number {
  return () => (readings.length > 1 ? (readings.shift() as number) : (readings[0] as number));
}

const echo: Handler = (request, ctx) => ({
  content: [{ type: 'text', text: `${request.params?.['name']} ${ctx.mcpReq.requestState()}` }],
});

describe('what the guard binds a raw request to', () => {
  it('passes a request without params to the handler, bound to no name', async () => {
    const server = guarded({}, () => ({ content: [] }));
    expect(await server.call({ method: 'tools/call' })).toEqual({
      ok: true,
      result: { content: [] },
    });
    expect(await server.call({ method: 'resources/read' })).toEqual({
      ok: true,
      result: { content: [] },
    });
  });

  it('binds a name or URI that is not a string as no name, instead of refusing the request', async () => {
    const server = guarded({}, () => ({ content: [] }));
    for (const request of [
      { method: 'tools/call', params: { name: 42, arguments: {} } },
      { method: 'resources/read', params: { uri: 42 } },
    ]) {
      expect(await server.call(request)).toEqual({ ok: true, result: { content: [] } });
    }
    expect(server.reasons).toEqual([]);
  });

  it('lets a request through to a handler that asks a question without a state', async () => {
    const asking = inputRequired({
      inputRequests: { confirm: { method: 'elicitation/create', params: {} } },
    } as never);
    const server = guarded({}, () => asking);
    expect(await server.call({ method: 'tools/call', params: { name: 'pay' } })).toEqual({
      ok: true,
      result: asking,
    });
  });
});

describe('single use', () => {
  const single = (now: () => number) => ({
    now,
    singleUse: { ledger: createMemoryLedger(), tools: ['pay'] },
  });

  it('applies to tools only: a prompt of the same name may be replayed', async () => {
    const server = guarded(
      single(() => AT),
      echo,
    );
    const token = tokenFor('pay', undefined, 'prompts/get');
    const prompt = { method: 'prompts/get', params: { name: 'pay' } };
    expect((await server.call(prompt, context(token))).ok).toBe(true);
    expect((await server.call(prompt, context(token))).ok).toBe(true);
    const tool = { method: 'tools/call', params: { name: 'pay', arguments: {} } };
    const once = tokenFor('pay');
    expect((await server.call(tool, context(once))).ok).toBe(true);
    expect(await server.call(tool, context(once))).toMatchObject(INVALID);
    expect(server.reasons).toEqual(['replayed']);
  });

  it('asks a predicate about a nameless tool call as the empty name', async () => {
    const asked: string[] = [];
    const tools = (name: string) => (asked.push(name), false);
    const server = guarded({ singleUse: { ledger: createMemoryLedger(), tools } }, echo);
    const token = createStateSealer({ keys: KEY, audience: 'pay' }).seal(
      {},
      { method: 'tools/call' },
    );
    expect((await server.call({ method: 'tools/call' }, context(token))).ok).toBe(true);
    expect(asked).toEqual(['']);
  });

  it('refuses as "clock-unavailable" when the clock fails after the token was judged live', async () => {
    // Readings: the request's binding, the sealer's expiry check, then the lifetime left.
    const server = guarded(single(clock(AT, AT, Number.NaN)), echo);
    const tool = { method: 'tools/call', params: { name: 'pay', arguments: {} } };
    expect(await server.call(tool, context(tokenFor('pay')))).toMatchObject(INTERNAL);
    expect(server.reasons).toEqual(['clock-unavailable']);
  });

  it('refuses as "expired" when no lifetime is left by the time the ledger is asked', async () => {
    // The token lives 600 s; the third reading is its expiry to the millisecond.
    const server = guarded(single(clock(AT, AT, AT + 600_000)), echo);
    const tool = { method: 'tools/call', params: { name: 'pay', arguments: {} } };
    expect(await server.call(tool, context(tokenFor('pay')))).toMatchObject(INVALID);
    expect(server.reasons).toEqual(['expired']);
  });
});

describe('a principal resolver that answers what no principal can be', () => {
  it('refuses the state as "request", the frozen answer, rather than failing', async () => {
    const server = guarded({ principal: () => 42 as never }, echo);
    const tool = { method: 'tools/call', params: { name: 'pay', arguments: {} } };
    expect(await server.call(tool, context(tokenFor('pay')))).toMatchObject(INVALID);
    expect(server.reasons).toEqual(['request']);
  });
});

describe('a guard on a random key', () => {
  it('serves stdio requests, which carry no http context', async () => {
    const server = guarded({ keys: undefined }, () => ({ content: [] }));
    expect((await server.call({ method: 'tools/call', params: { name: 'pay' } })).ok).toBe(true);
  });

  it('serves HTTP requests when an HTTP guard was allowed one', async () => {
    const server = guarded({ transport: 'http', keys: undefined, allowEphemeralKey: true }, () => ({
      content: [],
    }));
    const request = { method: 'tools/call', params: { name: 'pay' } };
    expect((await server.call(request, context(undefined, {}))).ok).toBe(true);
  });

  it('refuses HTTP requests reaching a stdio guard', async () => {
    const server = guarded({ keys: undefined }, () => ({ content: [] }));
    const request = { method: 'tools/call', params: { name: 'pay' } };
    expect(await server.call(request, context(undefined, {}))).toMatchObject(INTERNAL);
    expect(server.reasons).toEqual(['ephemeral-key']);
  });
});

describe('protect() on a low-level Server', () => {
  const guard = () => createStateGuard({ transport: 'stdio', audience: 'pay', keys: KEY });

  it('names what it got instead of a server', () => {
    const error = (got: string) =>
      new TypeError(`server must be an McpServer or a Server, got ${got}`);
    expect(() => guard().protect({} as Server)).toThrow(error('object'));
    expect(() => guard().protect(null as unknown as Server)).toThrow(error('object'));
    expect(() => guard().protect('server' as unknown as Server)).toThrow(error('string'));
  });

  it.each([
    ['tools', 'tool'],
    ['prompts', 'prompt'],
    ['resources', 'resource'],
  ])('says exactly what to do when %s were registered first', (family, one) => {
    const method = { tools: 'tools/call', prompts: 'prompts/get', resources: 'resources/read' }[
      family
    ];
    const server = new McpServer(
      { name: 'eager', version: '1.0.0' },
      { capabilities: { [family]: {} } },
    );
    expect(() => guard().protect(server)).toThrow(
      new TypeError(
        `protect() must run before the server has a ${method} handler. McpServer registers it with ` +
          `the first ${one}, and at once when constructed with capabilities.${family}. ` +
          `Create the server without capabilities.${family}, call guard.protect(server), then register ` +
          `${family}: McpServer declares the capability itself. To declare it before any is registered ` +
          `(or to set listChanged), call server.server.registerCapabilities({ ${family}: {…} }) after ` +
          `protect().`,
      ),
    );
  });

  it('takes guarded methods in the spec handler form only, and other methods untouched', () => {
    const server = guard().protect(new Server({ name: 'p', version: '1.0.0' }));
    const setRequestHandler = server.setRequestHandler as unknown as (...args: unknown[]) => void;
    expect(() => setRequestHandler.call(server, 'tools/call', {}, () => ({}))).toThrow(
      new TypeError('a guarded server registers tools/call with the spec handler form'),
    );
    expect(() =>
      setRequestHandler.call(
        server,
        'tools/call',
        () => ({}),
        () => ({}),
      ),
    ).toThrow(new TypeError('a guarded server registers tools/call with the spec handler form'));
    expect(() => setRequestHandler.call(server, 'prompts/get', 'not a function')).toThrow(
      new TypeError('a guarded server registers prompts/get with the spec handler form'),
    );
    expect(() => setRequestHandler.call(server, 'ping', () => ({}))).not.toThrow();
  });

  it('takes a function or nothing as the fallback handler', () => {
    const server = guard().protect(new Server({ name: 'p', version: '1.0.0' }));
    expect(server.fallbackRequestHandler).toBeUndefined();
    expect(() => {
      server.fallbackRequestHandler = 5 as never;
    }).toThrow(new TypeError('fallbackRequestHandler must be a function, got number'));
    server.fallbackRequestHandler = (async () => ({})) as never;
    expect(typeof server.fallbackRequestHandler).toBe('function');
    server.fallbackRequestHandler = undefined;
    expect(server.fallbackRequestHandler).toBeUndefined();
  });

  it('leaves the properties it replaces writable, redefinable and listed, as the SDK had them', () => {
    const server = guard().protect(new Server({ name: 'p', version: '1.0.0' }));
    // Instrumentation wraps methods by assignment or by redefining them; both must keep working.
    const guardedSet = server.setRequestHandler;
    server.setRequestHandler = guardedSet;
    Object.defineProperty(server, 'setRequestHandler', {
      value: guardedSet,
      configurable: true,
      writable: true,
    });
    const accessor = Object.getOwnPropertyDescriptor(server, 'fallbackRequestHandler');
    expect(accessor).toMatchObject({ enumerable: true, configurable: true });
    expect(Object.keys(server)).toContain('fallbackRequestHandler');
    Object.defineProperty(server, 'fallbackRequestHandler', accessor as PropertyDescriptor);
  });
});
