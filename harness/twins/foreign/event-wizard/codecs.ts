/**
 * How `plan_event` writes its rounds' states down, per variant.
 *
 * - `round3-plain`: rounds 1 and 2 are sealed by stateguard's `createStateSealer`, bound to the
 *   caller, the tool and its arguments. The confirmation round was added later, by someone who
 *   wrote its state as plain JSON: a state that starts with `{` is parsed and believed.
 * - `jws-none`: every round is a JWS compact token (HS256, by `createHmac`), its claims `sub` (the
 *   caller) and `exp`. The hand-written verifier looks the algorithm up in a table that also has
 *   RFC 7519's unsecured `none`, whose signature is the empty string: a token with
 *   `{"alg":"none"}` and no signature passes, whatever its claims say.
 * - `fixed`: plain JSON that a `createStateGuard` on the same server seals and opens.
 *
 * `read` gives `undefined` on a first round and `null` for a state that does not open (one refusal
 * for every reason).
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { StateSealer } from '../../../../src/seal/seal.js';
import { createStateSealer } from '../../../../src/seal/seal.js';
import { MAX_STATE_CHARS, record } from '../flow-state.js';

/** What a round carries. `sub` is who the event is planned for. */
export interface EventState {
  sub: string;
  title: string;
  day?: string;
  room?: string;
  step: 'day' | 'room' | 'confirm';
}

/** The request a state belongs to (what the sealer binds). */
export interface EventCall {
  caller: string;
  args: { title: string };
}

export interface EventCodec {
  write(state: EventState, call: EventCall): string;
  read(raw: string | undefined, call: EventCall): EventState | undefined | null;
}

/** The tool's name, bound into sealed states. */
export const TOOL = 'plan_event';
/** Lifetime of one round, in seconds. */
export const ROUND_SECONDS = 600;

/** A JSON object, or `null` for anything else. */
function object(text: string): Record<string, unknown> | null {
  try {
    return record(JSON.parse(text)) ?? null;
  } catch {
    return null;
  }
}

/** What the hurried code does with a parsed state: believes it is one. */
const parsed = (text: string): EventState | null => object(text) as EventState | null;

/** rounds 1–2 sealed, round 3 plain JSON. */
export function round3Plain(keys: Uint8Array): EventCodec {
  const sealer: StateSealer = createStateSealer({ keys, audience: 'event-wizard' });
  const binding = (call: EventCall) => ({
    principal: call.caller,
    method: 'tools/call',
    name: TOOL,
    args: call.args,
  });
  return {
    write(state, call) {
      // The confirmation step came later; its state "doesn't need the crypto".
      if (state.step === 'confirm') return JSON.stringify(state);
      return sealer.seal(state, binding(call));
    },
    read(raw, call) {
      if (raw === undefined) return undefined;
      if (raw.length > MAX_STATE_CHARS) return null;
      if (raw.startsWith('{')) return parsed(raw);
      try {
        return (record(sealer.open(raw, binding(call)).state) as EventState | undefined) ?? null;
      } catch {
        return null;
      }
    },
  };
}

const b64 = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');

/** HS256 JWS with a verifier that also knows `none`. */
export function jwsNone(key: Uint8Array = randomBytes(32)): EventCodec {
  const algorithms: Record<string, (input: string) => string> = {
    HS256: (input) => createHmac('sha256', key).update(input).digest('base64url'),
    none: () => '',
  };
  return {
    write(state) {
      const claims = { ...state, exp: Math.floor(Date.now() / 1000) + ROUND_SECONDS };
      const input = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64(claims)}`;
      return `${input}.${algorithms['HS256']?.(input) ?? ''}`;
    },
    read(raw) {
      if (raw === undefined) return undefined;
      if (raw.length > MAX_STATE_CHARS) return null;
      const [header, payload, signature, ...rest] = raw.split('.');
      if (header === undefined || payload === undefined || signature === undefined) return null;
      if (rest.length > 0) return null;
      const alg = object(Buffer.from(header, 'base64url').toString('utf8'))?.['alg'];
      const sign = typeof alg === 'string' ? algorithms[alg] : undefined;
      if (sign === undefined) return null;
      const expected = Buffer.from(sign(`${header}.${payload}`));
      const given = Buffer.from(signature);
      if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
      const claims = parsed(Buffer.from(payload, 'base64url').toString('utf8'));
      const exp = (claims as { exp?: unknown } | null)?.exp;
      if (typeof exp !== 'number' || exp * 1000 < Date.now()) return null;
      return claims;
    },
  };
}

/** The fix: the guard seals what `write` returns and opens what comes back. */
export function guarded(): EventCodec {
  return {
    write: (state) => JSON.stringify(state),
    read: (raw) => (raw === undefined ? undefined : parsed(raw)),
  };
}
