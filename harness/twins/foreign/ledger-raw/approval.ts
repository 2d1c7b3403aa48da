/**
 * `approve_expense`: a question, then the approval, and the two ways a variant carries the state
 * between them.
 *
 * Round 1 looks the ledger up for the caller and asks `approve: { ok }`, handing out a `requestState`
 * of `{ ledger, amount, who, step }`. Round 2 approves what *the state* says: its ledger, its amount,
 * on behalf of its `who`. The handler is the same in every variant; only the codec differs:
 *
 * - base64 (`flawed`, `spelled`, `toplevel`): plain base64 of the JSON, decoded and trusted. Any
 *   edit, any other caller's state, a state from another call: all acted on.
 * - sealed (`fixed`): stateguard's `createStateSealer`, bound to the caller, the tool and the
 *   arguments, each token opened once (stateguard's memory ledger); whatever does not open is the
 *   JSON-RPC error -32602 "Invalid or expired requestState".
 */
import { createMemoryLedger } from '../../../../src/ledger/memory.js';
import { createStateSealer } from '../../../../src/seal/seal.js';
import { refused, type LedgerBook } from './book.js';

/** What travels in the `requestState`. */
export interface ApprovalState {
  readonly ledger: string;
  readonly amount: number;
  readonly who: string;
  readonly step: 'approve';
}

/** The call a state belongs to (what the fixed codec binds). */
export interface ApprovalCall {
  readonly principal: string;
  readonly args: Record<string, unknown>;
}

/** Carries an {@link ApprovalState} from round 1 to round 2. */
export interface ApprovalCodec {
  write(state: ApprovalState, call: ApprovalCall): string;
  /** The state a retry carries, or `undefined` when it is refused. */
  read(token: unknown, call: ApprovalCall): Promise<ApprovalState | undefined>;
  /** The JSON-RPC error message a refused state is answered with. */
  readonly refusal: string;
}

/** Longest `requestState` read at all. */
export const MAX_STATE_CHARS = 4096;
export const TOOL = 'approve_expense';
/** The key of the question in `inputRequests` / `inputResponses`. */
export const APPROVE_KEY = 'approve';

function asState(value: unknown): ApprovalState | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { ledger, amount, who, step } = value as Record<string, unknown>;
  if (typeof ledger !== 'string' || typeof who !== 'string' || step !== 'approve') return undefined;
  if (typeof amount !== 'number' || !Number.isFinite(amount)) return undefined;
  return { ledger, amount, who, step };
}

/** The flawed codec: base64 JSON, read back and believed. */
export function base64Codec(): ApprovalCodec {
  return {
    write: (state) => Buffer.from(JSON.stringify(state), 'utf8').toString('base64'),
    async read(token) {
      if (typeof token !== 'string' || token.length > MAX_STATE_CHARS) return undefined;
      try {
        return asState(JSON.parse(Buffer.from(token, 'base64').toString('utf8')));
      } catch {
        return undefined;
      }
    },
    refusal: 'requestState could not be decoded',
  };
}

/**
 * The fixed codec: sealed by stateguard and bound to principal, tool and arguments, and each token
 * opened at most once (an approval must not be replayable by its own caller either).
 */
export function sealedCodec(keys: Uint8Array, log: (line: string) => void): ApprovalCodec {
  const sealer = createStateSealer({ keys, audience: 'ledger-raw', ttlSeconds: 300 });
  const spent = createMemoryLedger({ maxEntries: 10_000 });
  const refuse = (reason: string): undefined => {
    log(`[ledger-raw] requestState refused (${reason})`);
    return undefined;
  };
  const binding = (call: ApprovalCall) => ({
    principal: call.principal,
    method: 'tools/call',
    name: TOOL,
    args: call.args,
  });
  return {
    write: (state, call) => sealer.seal(state, binding(call)),
    async read(token, call) {
      let opened;
      try {
        opened = sealer.open(token, binding(call));
      } catch (error) {
        const reason = (error as { reason?: unknown }).reason;
        return refuse(typeof reason === 'string' ? reason : 'error');
      }
      try {
        // The ledger takes a lifetime, counted on its own clock.
        const ttlMs = opened.claims.expiresAt - Date.now();
        if (ttlMs <= 0) return refuse('expired');
        const first = await spent.consume(opened.claims.tokenId, ttlMs);
        if (!first) return refuse('replayed');
      } catch {
        // Fail closed: a ledger that cannot answer must not make the token reusable.
        return refuse('ledger-unavailable');
      }
      return asState(opened.state);
    },
    refusal: 'Invalid or expired requestState',
  };
}

/** What one round of `approve_expense` comes to; the server shapes it per variant. */
export type ApprovalOutcome =
  | { kind: 'ask'; inputRequests: Record<string, unknown>; requestState: string }
  | { kind: 'text'; text: string; isError?: true }
  | { kind: 'bad-state'; message: string };

function ask(state: ApprovalState, call: ApprovalCall, codec: ApprovalCodec): ApprovalOutcome {
  return {
    kind: 'ask',
    inputRequests: {
      [APPROVE_KEY]: {
        method: 'elicitation/create',
        params: {
          mode: 'form',
          message: `Approve an expense of ${state.amount}? Answer ok: true to approve.`,
          requestedSchema: {
            type: 'object',
            properties: { ok: { type: 'boolean', description: 'true to approve' } },
            required: ['ok'],
          },
        },
      },
    },
    requestState: codec.write(state, call),
  };
}

/** `true` approve, `false` decline, `undefined` not answered (asked again). */
function answer(inputResponses: unknown): boolean | undefined {
  if (typeof inputResponses !== 'object' || inputResponses === null) return undefined;
  const response = (inputResponses as Record<string, unknown>)[APPROVE_KEY];
  if (typeof response !== 'object' || response === null) return undefined;
  const { action, content } = response as { action?: unknown; content?: unknown };
  if (action === 'decline' || action === 'cancel') return false;
  if (action !== 'accept' || typeof content !== 'object' || content === null) return undefined;
  const ok = (content as Record<string, unknown>)['ok'];
  return typeof ok === 'boolean' ? ok : undefined;
}

/** One round of `approve_expense` (arguments already checked to be `{ ledger, amount }`). */
export async function approveRound(
  params: { requestState?: unknown; inputResponses?: unknown },
  call: ApprovalCall & { args: { ledger: string; amount: number } },
  book: LedgerBook,
  codec: ApprovalCodec,
): Promise<ApprovalOutcome> {
  if (params.requestState === undefined) {
    const ledger = book.lookup(call.args.ledger, call.principal);
    if (refused(ledger)) return { kind: 'text', text: ledger.content[0].text, isError: true };
    const state: ApprovalState = {
      ledger: ledger.id,
      amount: call.args.amount,
      who: call.principal,
      step: 'approve',
    };
    return ask(state, call, codec);
  }
  const state = await codec.read(params.requestState, call);
  if (state === undefined) return { kind: 'bad-state', message: codec.refusal };
  const yes = answer(params.inputResponses);
  // Not answered: ask again rather than fail (MRTR's advice).
  if (yes === undefined) return ask(state, call, codec);
  if (!yes) return { kind: 'text', text: 'expense not approved' };
  // Everything below comes from the state: that trust is the flaw wherever the state is not sealed.
  const ledger = book.lookup(state.ledger, state.who);
  if (refused(ledger)) return { kind: 'text', text: ledger.content[0].text, isError: true };
  ledger.balance -= state.amount;
  return {
    kind: 'text',
    text: `approved ${state.amount} on ledger ${ledger.name} for ${state.who} (balance now ${ledger.balance})`,
  };
}
