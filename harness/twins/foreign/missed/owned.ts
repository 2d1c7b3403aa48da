/**
 * Records behind handles, for the missed-shape twins (`missed/`): the flawed way (a random id looked
 * up with no owner check) and the fixed way (a stateguard handle bound to its owner by
 * `createHandleBinder`, opened only for that owner; anyone else is told nothing exists).
 */
import { randomBytes } from 'node:crypto';
import { createHandleBinder } from '../../../../src/bind/handle.js';
import { HandleRejectedError } from '../../../../src/errors.js';
import type { FixtureLog } from '../../../../src/fixture/log.js';

const MAX_RECORDS = 5000;

/** A store of records of one kind, each owned by the principal that made it. */
export interface Owned<T> {
  /** Keep `record` for `owner`; the handle to hand out (`prefix` + id or bound handle). */
  issue(owner: string, record: T): string;
  /** The record `handle` names, when `caller` may see it (flawed: always). */
  open(handle: string, caller: string): T | undefined;
}

/** Options of {@link owned}. */
export interface OwnedOptions {
  readonly variant: 'flawed' | 'fixed';
  /** Who the handles are for (the binder's audience) and what they name (its kind). */
  readonly audience: string;
  readonly kind: string;
  /** What each handle starts with (`BK-`, `ct_`). */
  readonly prefix: string;
  /** The flawed variant's id (default: 12 random hex characters). */
  readonly flawedId?: () => string;
  readonly log: FixtureLog;
}

/** A store of records for one process (it outlives the per-request SDK server). */
export function owned<T>(o: OwnedOptions): Owned<T> {
  const records = new Map<string, { owner: string; record: T }>();
  const binder = createHandleBinder({ keys: randomBytes(32), audience: o.audience });
  const keep = (id: string, owner: string, record: T): void => {
    if (records.size >= MAX_RECORDS) records.delete(records.keys().next().value as string);
    records.set(id, { owner, record });
  };
  return {
    issue(owner, record) {
      if (o.variant === 'flawed') {
        const id = (o.flawedId ?? (() => randomBytes(6).toString('hex')))();
        keep(id, owner, record);
        return `${o.prefix}${id}`;
      }
      const { handle, claims } = binder.issue(owner, o.kind);
      keep(claims.handleId, owner, record);
      return `${o.prefix}${handle}`;
    },
    open(handle, caller) {
      if (!handle.startsWith(o.prefix)) return undefined;
      const rest = handle.slice(o.prefix.length);
      if (o.variant === 'flawed') return records.get(rest)?.record;
      try {
        return records.get(binder.open(rest, caller, o.kind).handleId)?.record;
      } catch (error) {
        if (!(error instanceof HandleRejectedError)) throw error;
        o.log(`[${o.audience}] ${o.kind} handle refused (${error.reason})`);
        return undefined;
      }
    },
  };
}
