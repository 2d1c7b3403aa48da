/**
 * The expense ledgers of `ledger-raw`, and the two ways a variant looks one up.
 *
 * - open book (`flawed`, `spelled`, `toplevel`): a ledger id is `lg-` plus 16 random bytes, kept in a
 *   table with its owner, and looked up by id alone. The owner is recorded and printed but never
 *   compared with the caller: whoever holds the id reads the ledger. The realistic mistake is that the
 *   id "looks unguessable", so nobody wrote the check.
 * - bound book (`fixed`): the id is `lg-` plus a stateguard handle (`createHandleBinder`) minted for
 *   the caller; opening it for anybody else, forged, or stale, is the library's one tool error.
 */
import { randomBytes } from 'node:crypto';
import { createHandleBinder } from '../../../../src/bind/handle.js';
import { handleToolError, type HandleToolErrorResult } from '../../../../src/bind/tool-error.js';
import { HandleRejectedError } from '../../../../src/errors.js';

/** One ledger. */
export interface Ledger {
  readonly id: string;
  readonly owner: string;
  readonly name: string;
  balance: number;
}

/** Every ledger opens with this balance; approved expenses are taken off it. */
export const OPENING_BALANCE = 10_000;
/** Most ledgers one server remembers; the oldest go first. */
export const MAX_LEDGERS = 5_000;
/** The handle kind of a bound ledger id. */
export const LEDGER_KIND = 'ledger';
const PREFIX = 'lg-';

/** The ledgers of one server process. */
export interface LedgerBook {
  create(owner: string, name: string): Ledger;
  /** The ledger `id` names for `caller`, or a tool error result. */
  lookup(id: string, caller: string): Ledger | HandleToolErrorResult;
}

/** Whether a lookup came back as the tool error. */
export function refused(value: Ledger | HandleToolErrorResult): value is HandleToolErrorResult {
  return 'isError' in value;
}

function table() {
  const entries = new Map<string, Ledger>();
  return {
    get: (key: string) => entries.get(key),
    put(key: string, ledger: Ledger) {
      if (entries.size >= MAX_LEDGERS) {
        const oldest = entries.keys().next().value;
        if (oldest !== undefined) entries.delete(oldest);
      }
      entries.set(key, ledger);
    },
  };
}

const noSuchLedger = (): HandleToolErrorResult => ({
  content: [{ type: 'text', text: 'no such ledger' }],
  isError: true,
});

/** The flawed book: ids looked up with no owner check. */
export function createOpenBook(): LedgerBook {
  const ledgers = table();
  return {
    create(owner, name) {
      const ledger = { id: `${PREFIX}${randomBytes(16).toString('hex')}`, owner, name };
      const entry = { ...ledger, balance: OPENING_BALANCE };
      ledgers.put(entry.id, entry);
      return entry;
    },
    // The flaw: the caller is not even looked at.
    lookup: (id) => ledgers.get(id) ?? noSuchLedger(),
  };
}

/** The fixed book: ids are stateguard handles bound to the principal that created them. */
export function createBoundBook(keys: Uint8Array, log: (line: string) => void): LedgerBook {
  const binder = createHandleBinder({ keys, audience: 'ledger-raw' });
  const ledgers = table();
  const refuse = (error: unknown): HandleToolErrorResult =>
    handleToolError(error, {
      kind: LEDGER_KIND,
      onRejected: (reason) => log(`[ledger-raw] ledger handle refused (${reason})`),
    });
  return {
    create(owner, name) {
      const { handle, claims } = binder.issue(owner, LEDGER_KIND);
      const entry = { id: `${PREFIX}${handle}`, owner, name, balance: OPENING_BALANCE };
      ledgers.put(claims.handleId, entry);
      return entry;
    },
    lookup(id, caller) {
      const handle = id.startsWith(PREFIX) ? id.slice(PREFIX.length) : id;
      try {
        const { handleId } = binder.open(handle, caller, LEDGER_KIND);
        return ledgers.get(handleId) ?? refuse(new HandleRejectedError('revoked'));
      } catch (error) {
        return refuse(error);
      }
    },
  };
}
