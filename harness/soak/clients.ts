/**
 * The soak's clients: official SDK clients (pinned to 2026-07-28, manual multi round-trip) running
 * the three-round `create_report` wizard through the proxy, many at once.
 *
 * Every flow ends in exactly one status, judged by what came back:
 * - `completed`: the last round answered the report's creation;
 * - `refused`: some round was refused with one of the two frozen errors (`-32602 Invalid or
 *   expired requestState`, `-32603 Internal error`);
 * - `transport`: a round got an answer that is not MCP (a `502` from the proxy, a reset
 *   connection), again on each retry;
 * - `lost`: a round got no answer at all within the bound (the client's timeout);
 * - `unexpected`: anything else (another error, a wrong result): a bug, like `lost`.
 *
 * A round that fails in transport is sent again as is (up to `retries` times): that is what a real
 * client does when an instance dies under it, and it is the dangerous case for single use, since
 * the first copy may have run.
 */
import {
  Client,
  ProtocolError,
  SdkError,
  SdkErrorCode,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { INTERNAL_ERROR_MESSAGE, INVALID_STATE_MESSAGE } from '../../src/sdk/wire.js';
import { PIN_HEADER } from './proxy.js';

/** How a flow ended. */
export const FLOW_STATUSES = ['completed', 'refused', 'transport', 'lost', 'unexpected'] as const;
export type FlowStatus = (typeof FLOW_STATUSES)[number];

/** One flow, as the client saw it. */
export interface FlowRecord {
  readonly title: string;
  readonly phase: string;
  status: FlowStatus;
  /** The frozen code it was refused with. */
  refusedWith?: number;
  /** Rounds that failed in transport (each was retried unless retries ran out). */
  transportErrors: number;
  /** Its final round was sent twice at once: to the same instance, or to two. */
  replay?: 'same' | 'other';
  /** The fault active when a flow that did not complete ended ('' for none). */
  endedDuring?: string;
  /** What goes wrong, for `unexpected`. */
  detail?: string;
}

/** One answered round: its latency and the fault active when it was sent ('' for none). */
export interface RoundSample {
  readonly phase: string;
  readonly fault: string;
  readonly ms: number;
}

/** What came back from one copy of one round. */
type Answer =
  | { kind: 'result'; result: Record<string, unknown> }
  | { kind: 'refused'; code: number }
  | { kind: 'unexpected'; detail: string }
  | { kind: 'transport'; detail: string }
  | { kind: 'timeout' };

/** Tallies of late replays: final rounds already used, sent again later. */
export type LateReplays = Record<Answer['kind'], number>;

/** Options of {@link createLoad}. */
export interface LoadOptions {
  url: string;
  clients: number;
  /** Bearer tokens: client `w` is user `tokens[w % tokens.length]`. */
  tokens: readonly string[];
  /** Instances behind the proxy (to pin replays). */
  instances: number;
  roundTimeoutMs: number;
  retries: number;
  /** The fault active now ('' for none); `replay` makes final rounds go twice. */
  activeFault: () => string;
}

/** A pool of connected clients that runs phases of load. */
export interface Load {
  readonly flows: FlowRecord[];
  readonly samples: RoundSample[];
  /**
   * Run flows on every client until `done()` says so or `maxFlows` flows (in all phases) have
   * started; a flow under way is finished (each of its rounds is bounded).
   */
  run(phase: string, done: () => boolean, maxFlows: number): Promise<void>;
  /** Send up to `count` completed final rounds again, through the proxy. */
  replayLate(count: number): Promise<LateReplays>;
  close(): Promise<void>;
}

const FINALS_KEPT = 256;

function isFrozen(error: ProtocolError): boolean {
  if (error.code === -32603) return error.message === INTERNAL_ERROR_MESSAGE;
  const data = error.data as { reason?: unknown } | undefined;
  return (
    error.code === -32602 &&
    error.message === INVALID_STATE_MESSAGE &&
    data?.reason === 'invalid_request_state'
  );
}

async function connect(url: string, token: string): Promise<Client> {
  const client = new Client(
    { name: 'stateguard-soak', version: '0.0.0' },
    {
      versionNegotiation: { mode: { pin: '2026-07-28' } },
      inputRequired: { autoFulfill: false },
      capabilities: { elicitation: { form: {} } },
    },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), { authProvider: { token: async () => token } }),
  );
  return client;
}

async function send(
  client: Client,
  params: Record<string, unknown>,
  timeoutMs: number,
  pin?: number,
): Promise<Answer> {
  let timer: NodeJS.Timeout | undefined;
  // The SDK's own timeout should fire first; this one bounds the round whatever happens.
  const bound = new Promise<Answer>((resolve) => {
    timer = setTimeout(() => resolve({ kind: 'timeout' }), timeoutMs + 2_000);
  });
  const answer = client
    .request(
      { method: 'tools/call', params },
      {
        allowInputRequired: true,
        timeout: timeoutMs,
        ...(pin !== undefined && { headers: { [PIN_HEADER]: String(pin) } }),
      },
    )
    .then(
      (result): Answer => ({ kind: 'result', result: result as Record<string, unknown> }),
      (error: unknown): Answer => {
        if (error instanceof ProtocolError) {
          return isFrozen(error)
            ? { kind: 'refused', code: error.code }
            : { kind: 'unexpected', detail: `${error.code} ${error.message}` };
        }
        if (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout) {
          return { kind: 'timeout' };
        }
        return { kind: 'transport', detail: error instanceof Error ? error.message : 'error' };
      },
    );
  try {
    return await Promise.race([answer, bound]);
  } finally {
    clearTimeout(timer);
  }
}

/** Whether a result is what this round of the wizard must answer; a reason if not. */
function checkResult(round: number, title: string, result: Record<string, unknown>): string | null {
  if (round < 3) {
    const asks = Object.keys((result['inputRequests'] ?? {}) as object);
    const want = round === 1 ? 'pick_dataset' : 'pick_range';
    const ok = result['resultType'] === 'input_required' && asks.join() === want;
    return ok && typeof result['requestState'] === 'string' ? null : `round ${round}: not ${want}`;
  }
  const text = (result['content'] as { text?: string }[] | undefined)?.[0]?.text;
  const done = `Report "${title}" on sales for Q3 created.`;
  return text === done && result['isError'] !== true ? null : `round 3: ${text ?? 'no text'}`;
}

const ANSWERS = [undefined, { pick_dataset: 'sales' }, { pick_range: 'Q3' }] as const;

function roundParams(title: string, round: number, state: string | undefined) {
  const params: Record<string, unknown> = { name: 'create_report', arguments: { title } };
  const answer = ANSWERS[round - 1];
  if (answer !== undefined) {
    const [key, value] = Object.entries(answer)[0] as [string, string];
    const field = key.slice('pick_'.length);
    params['inputResponses'] = { [key]: { action: 'accept', content: { [field]: value } } };
    params['requestState'] = state;
  }
  return params;
}

/** Connect `clients` SDK clients to the proxy. */
export async function createLoad(options: LoadOptions): Promise<Load> {
  const clients = await Promise.all(
    Array.from({ length: options.clients }, (_, w) =>
      connect(options.url, options.tokens[w % options.tokens.length] as string),
    ),
  );
  const flows: FlowRecord[] = [];
  const samples: RoundSample[] = [];
  // Used final rounds, with the client (the user) that sent them: a replay from another user would
  // be refused for its principal and prove nothing about single use.
  const finals: { client: Client; params: Record<string, unknown> }[] = [];
  let flowCount = 0;

  /** One copy or a simultaneous pair of one round, timed. */
  const timed = async (
    client: Client,
    phase: string,
    params: Record<string, unknown>,
    pins: readonly (number | undefined)[],
  ): Promise<Answer[]> => {
    const fault = options.activeFault();
    const started = performance.now();
    const answers = await Promise.all(
      pins.map((pin) => send(client, params, options.roundTimeoutMs, pin)),
    );
    const ms = performance.now() - started;
    if (answers.some((a) => a.kind !== 'timeout' && a.kind !== 'transport')) {
      samples.push({ phase, fault, ms });
    }
    return answers;
  };

  const runFlow = async (client: Client, phase: string, title: string): Promise<void> => {
    const record: FlowRecord = { title, phase, status: 'completed', transportErrors: 0 };
    flows.push(record);
    let state: string | undefined;
    for (let round = 1; round <= 3; round += 1) {
      const params = roundParams(title, round, state);
      let pins: (number | undefined)[] = [undefined];
      if (round === 3 && options.activeFault() === 'replay') {
        const first = Math.floor(Math.random() * options.instances);
        record.replay = flowCount % 2 === 0 ? 'same' : 'other';
        const second = record.replay === 'same' ? first : (first + 1) % options.instances;
        pins = [first, second];
      }
      let answer: Answer | undefined;
      for (let attempt = 0; attempt <= options.retries; attempt += 1) {
        const answers = await timed(client, phase, params, attempt === 0 ? pins : [undefined]);
        // Of a replayed pair, the worst copy speaks for the flow (a copy left unanswered makes it
        // lost, a wrong answer unexpected), else the copy that went through; double effects are
        // counted from the journals, whatever the client saw.
        answer =
          answers.find((a) => a.kind === 'timeout') ??
          answers.find((a) => a.kind === 'unexpected') ??
          answers.find((a) => a.kind === 'result') ??
          answers.find((a) => a.kind === 'refused') ??
          answers[0];
        if (answer?.kind !== 'transport') break;
        record.transportErrors += 1;
        await new Promise((resolve) => setTimeout(resolve, 100 * (attempt + 1)));
      }
      if (answer?.kind !== 'result') record.endedDuring = options.activeFault();
      if (answer === undefined || answer.kind === 'transport') {
        record.status = 'transport';
        return;
      }
      if (answer.kind === 'timeout') {
        record.status = 'lost';
        return;
      }
      if (answer.kind === 'refused') {
        record.status = 'refused';
        record.refusedWith = answer.code;
        return;
      }
      if (answer.kind === 'unexpected') {
        record.status = 'unexpected';
        record.detail = answer.detail;
        return;
      }
      const wrong = checkResult(round, title, answer.result);
      if (wrong !== null) {
        record.status = 'unexpected';
        record.detail = wrong;
        return;
      }
      state = answer.result['requestState'] as string | undefined;
      if (round === 3) {
        finals.push({ client, params });
        if (finals.length > FINALS_KEPT) finals.shift();
      }
    }
  };

  return {
    flows,
    samples,
    async run(phase, done, maxFlows) {
      await Promise.all(
        clients.map(async (client, w) => {
          while (!done() && flowCount < maxFlows) {
            flowCount += 1;
            await runFlow(client, phase, `${phase}-${w}-${flowCount}`);
          }
        }),
      );
    },
    async replayLate(count) {
      const tally: LateReplays = { result: 0, refused: 0, unexpected: 0, transport: 0, timeout: 0 };
      const picked = finals.splice(0, count);
      await Promise.all(
        picked.map(async ({ client, params }) => {
          const answer = await send(client, params, options.roundTimeoutMs);
          tally[answer.kind] += 1;
        }),
      );
      return tally;
    },
    async close() {
      await Promise.allSettled(clients.map((client) => client.close()));
    },
  };
}
