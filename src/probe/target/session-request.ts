/**
 * One request of a session: a legacy identity's handshake on its first use, the per-call time
 * limit, the era's framing and the identity (bearer, header or `_meta`), and the session id a
 * legacy `initialize` hands out, named in the evidence.
 */
import type { Exchange, RequestOptions } from '../model/wire.js';
import type { IdentityName } from '../model/target.js';
import {
  abortOutcome,
  AbortCause,
  type ChannelReply,
  type ChannelRequest,
  type JsonRpcRequest,
} from './jsonrpc.js';
import { initializeAs } from './legacy-handshake.js';
import { LEGACY_VERSION, META, MODERN_VERSION } from './session-options.js';
import { noteEvidence } from '../evidence/evidence.js';
import { retryShed } from './shed-retry.js';
import type { Turn } from './pace.js';
import { shedOf, type Shed } from './shed.js';
import {
  alreadyDeclared,
  describeRequired,
  requiredOf,
  unhonourable,
  withRequired,
} from './capabilities.js';
import {
  envelope,
  identityHeaders,
  nameSession,
  renamed,
  sessionHeaderFor,
  type Wire,
} from './session-wire.js';

/**
 * Whether `identity` must first open a legacy session of its own: over HTTP, or as a process of its
 * own, unless the probe picked the session itself.
 */
function needsHandshake(wire: Wire, method: string, opts: RequestOptions): boolean {
  return (
    wire.era === 'legacy' &&
    method !== 'initialize' &&
    opts.session === undefined &&
    !wire.initialized.has(opts.identity) &&
    (wire.target.kind === 'http' || wire.perIdentity)
  );
}

/** What the channel is handed besides the message: identity, version, headers, abort. */
function channelFields(
  wire: Wire,
  method: string,
  opts: RequestOptions,
  signal: AbortSignal,
): Omit<ChannelRequest, 'message'> {
  const { target, options } = wire;
  return {
    label: opts.label,
    identity: opts.identity,
    ...(target.kind === 'http' && options.identityHeader === undefined && !opts.anonymous
      ? { bearer: options.identities[opts.identity] }
      : {}),
    ...(target.kind === 'http'
      ? {
          protocolVersion:
            wire.framing === 'legacy' ? (wire.negotiated ?? LEGACY_VERSION) : MODERN_VERSION,
        }
      : {}),
    headers: {
      ...sessionHeaderFor(wire, method, opts),
      ...(opts.anonymous ? {} : identityHeaders(wire, opts.identity)),
      ...(target.kind === 'http' ? opts.headers : {}),
    },
    signal,
  };
}

/** The exchange of a reply; an `initialize` keeps the session id it was answered with, named. */
function exchangeOf(
  wire: Wire,
  method: string,
  identity: IdentityName,
  reply: ChannelReply,
): Exchange {
  if (method === 'initialize') {
    // Read off the raw answer: the evidence already names the id it knows, not this new one.
    wire.lastSessionId = reply.responseHeaders?.['mcp-session-id'];
    if (wire.lastSessionId) {
      const name = nameSession(wire, identity, wire.lastSessionId);
      return {
        outcome: reply.outcome,
        evidence: renamed(reply.evidence, wire.lastSessionId, name),
      };
    }
  }
  return { outcome: reply.outcome, evidence: reply.evidence };
}

/**
 * Sends `method` as `opts.identity` and resolves with the exchange. `limit` names what set the time
 * limit, for the failure that says it fired.
 */
export async function request(
  wire: Wire,
  method: string,
  params: Record<string, unknown>,
  opts: RequestOptions,
  limit = 'the per-call limit, set by --timeout',
): Promise<Exchange> {
  const first = await sendPaced(wire, method, params, opts, limit);
  const required = requiredOf(first.outcome);
  const own = params['_meta'];
  // A probe's own envelope is deliberate; a legacy session declares once, in `initialize`.
  const ownCapabilities =
    typeof own === 'object' && own !== null && `${META}clientCapabilities` in own;
  if (
    required === undefined ||
    ownCapabilities ||
    wire.framing === 'legacy' ||
    unhonourable(required).length > 0 ||
    alreadyDeclared(wire.declared, required)
  )
    return first;
  // Every capability asked for can be honoured: declare it from now on, and ask again once.
  wire.declared = withRequired(wire.declared, required);
  const note = noteEvidence(
    wire.options.redactor,
    `-32021 asked for ${describeRequired(required)}; declared and asked again once`,
  );
  const again = await sendPaced(
    wire,
    method,
    params,
    { ...opts, label: `${opts.label} (declaring ${describeRequired(required)})` },
    limit,
  );
  return {
    ...again,
    earlier: [...(first.earlier ?? []), first.evidence, note, ...(again.earlier ?? [])],
    alsoSent: (first.alsoSent ?? 0) + 1 + (again.alsoSent ?? 0),
  };
}

/**
 * `method` sent until it is not shed: a shed answer is waited out as the server asks and sent
 * again, within the pace's limits and the deadline (`shed-retry.ts`).
 */
function sendPaced(
  wire: Wire,
  method: string,
  params: Record<string, unknown>,
  opts: RequestOptions,
  limit?: string,
): Promise<Exchange> {
  const outer = [wire.options.signal, opts.signal].filter((s): s is AbortSignal => s !== undefined);
  return retryShed(
    wire.paces[opts.identity],
    (attempt, turn) => requestOnce(wire, method, params, retryLabel(opts, attempt), limit, turn),
    {
      signal: AbortSignal.any(outer),
      redactor: wire.options.redactor,
    },
  );
}

/** The options of try number `attempt` (0 is the first): the label says it is sent again. */
function retryLabel(opts: RequestOptions, attempt: number): RequestOptions {
  return attempt === 0 ? opts : { ...opts, label: `${opts.label} (sent again ${attempt})` };
}

/** One send of `method`, with no second try, and the shed it was, if it was. */
async function requestOnce(
  wire: Wire,
  method: string,
  params: Record<string, unknown>,
  opts: RequestOptions,
  limit = 'the per-call limit, set by --timeout',
  turn?: Turn,
): Promise<{ exchange: Exchange; shed?: Shed }> {
  const handshake = needsHandshake(wire, method, opts)
    ? await implicitHandshake(wire, opts.identity)
    : undefined;
  const outer = [wire.options.signal, opts.signal].filter((s): s is AbortSignal => s !== undefined);
  // The pace's gate comes first: time spent waiting for a slot is not the server's slowness.
  const pace = wire.paces[opts.identity];
  const ticket = await pace.admit(AbortSignal.any(outer), turn);
  if (ticket === undefined) return { exchange: notSent(wire, AbortSignal.any(outer)) };
  const timeoutMs = opts.timeoutMs ?? wire.options.timeoutMs;
  const timer = new AbortController();
  const who = `${method}${opts.label ? ` '${opts.label}'` : ''} as ${opts.identity}`;
  // Which limit fired, and which flag sets it: a short limit must not read as a slow server.
  const handle = setTimeout(
    () =>
      timer.abort(
        new AbortCause('timeout', `no answer to ${who} within ${timeoutMs} ms (${limit})`),
      ),
    timeoutMs,
  );
  const message: JsonRpcRequest = {
    jsonrpc: '2.0',
    id: wire.nextId++,
    method,
    params: envelope(wire, opts.identity, params),
  };
  try {
    const reply = await wire.channel.send({
      message,
      ...channelFields(wire, method, opts, AbortSignal.any([timer.signal, ...outer])),
    });
    const shed = shedOf({
      outcome: reply.outcome,
      ...(reply.status === undefined ? {} : { status: reply.status }),
      ...(reply.responseHeaders ? { headers: reply.responseHeaders } : {}),
    });
    if (shed) pace.shed(shed, ticket);
    else pace.calm();
    const exchange = afterHandshake(exchangeOf(wire, method, opts.identity, reply), handshake);
    return { exchange, ...(shed ? { shed } : {}) };
  } finally {
    clearTimeout(handle);
    ticket.release();
  }
}

/**
 * A legacy identity's first request opens its session first: `initialize` as that identity, its
 * exchange kept, so the request that needed it records it and counts it as one more sent.
 */
async function implicitHandshake(wire: Wire, identity: IdentityName): Promise<Exchange> {
  wire.initialized.add(identity);
  const sent: Exchange[] = [];
  await initializeAs(wire, identity, async (method, label, params) => {
    const exchange = await request(wire, method, params, { identity, label });
    sent.push(exchange);
    return exchange.outcome;
  });
  // initializeAs sends its `initialize` first, always.
  return sent[0]!;
}

/** `exchange`, the handshake sent on its behalf recorded before it and counted. */
function afterHandshake(exchange: Exchange, handshake: Exchange | undefined): Exchange {
  if (handshake === undefined) return exchange;
  return {
    ...exchange,
    earlier: [...(handshake.earlier ?? []), handshake.evidence, ...(exchange.earlier ?? [])],
    alsoSent: (handshake.alsoSent ?? 0) + 1 + (exchange.alsoSent ?? 0),
  };
}

/** What a request that never left the gate stands for: the abort that stopped it, as a note. */
function notSent(wire: Wire, signal: AbortSignal): Exchange {
  const outcome = abortOutcome(signal);
  const detail = outcome.kind === 'failure' ? outcome.detail : 'aborted';
  return { outcome, evidence: noteEvidence(wire.options.redactor, `not sent: ${detail}`) };
}
