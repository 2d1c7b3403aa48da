/**
 * `book_table({ name, party })` and `booking_status({ reference })`: a restaurant's booking codes,
 * only ever in prose.
 *
 * - `open` (`prose-codes`): "Your booking BK-7Q2M9X is confirmed for 4.", six characters drawn
 *   uniformly from A–Z and 0–9 on every booking (so some codes are all letters, some all digits, and
 *   no two runs look alike), and `booking_status` answers any code, whoever asks: no owner check.
 * - `bound` (`sealed`): the code is `BK-` plus a stateguard handle bound to whoever booked; anyone
 *   else gets the same "no such booking" as for a code nobody minted.
 */
import { randomBytes, randomInt } from 'node:crypto';
import type { McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod';
import { createHandleBinder } from '../../../src/bind/handle.js';
import { HandleRejectedError } from '../../../src/errors.js';
import type { CallerOf } from '../foreign/caller.js';
import { ACTS, failure, MAX_TEXT, READS, text } from './common.js';

/** How booking codes are checked. */
export type TablePolicy = 'open' | 'bound';

interface Booking {
  readonly name: string;
  readonly party: number;
  readonly bookedBy: string;
}

/** Most bookings one server remembers; the oldest are forgotten first. */
export const MAX_BOOKINGS = 5000;
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const KIND = 'table-booking';

/** Six characters, each uniform over A–Z0–9. */
function drawCode(): string {
  let code = '';
  for (let i = 0; i < 6; i++) code += ALPHABET[randomInt(ALPHABET.length)];
  return `BK-${code}`;
}

/** The bookings of one running server, and how a code is minted and looked up. */
export interface BookingBook {
  book(owner: string, name: string, party: number): string;
  find(code: string, caller: string): Booking | undefined;
}

/** A booking book for one server (shared by every request it serves). */
export function createBookingBook(policy: TablePolicy, audience: string): BookingBook {
  const table = new Map<string, Booking>();
  const keep = (key: string, booking: Booking): void => {
    if (table.size >= MAX_BOOKINGS) {
      const oldest = table.keys().next().value;
      if (oldest !== undefined) table.delete(oldest);
    }
    table.set(key, booking);
  };
  if (policy === 'open') {
    return {
      book(bookedBy, name, party) {
        let code = drawCode();
        while (table.has(code)) code = drawCode();
        keep(code, { name, party, bookedBy });
        return code;
      },
      // The flaw: the code alone finds the booking.
      find: (code) => table.get(code),
    };
  }
  const binder = createHandleBinder({ keys: randomBytes(32), audience });
  return {
    book(bookedBy, name, party) {
      const { handle, claims } = binder.issue(bookedBy, KIND);
      keep(claims.handleId, { name, party, bookedBy });
      return `BK-${handle}`;
    },
    find(code, caller) {
      if (!code.startsWith('BK-')) return undefined;
      try {
        return table.get(binder.open(code.slice(3), caller, KIND).handleId);
      } catch (error) {
        if (error instanceof HandleRejectedError) return undefined;
        throw error;
      }
    },
  };
}

/** Registers `book_table` and `booking_status` on `server`. */
export function registerTables(server: McpServer, book: BookingBook, callerOf: CallerOf): void {
  server.registerTool(
    'book_table',
    {
      title: 'Book a table',
      description: 'Books a restaurant table and tells you the booking reference.',
      inputSchema: z.object({
        name: z.string().min(1).max(MAX_TEXT).describe('The name the table is booked under'),
        party: z.number().int().min(1).max(20).describe('How many guests'),
      }),
      annotations: ACTS,
    },
    async ({ name, party }, ctx) => {
      const code = book.book(callerOf(ctx), name, party);
      return text(`Your booking ${code} is confirmed for ${party}.`);
    },
  );
  server.registerTool(
    'booking_status',
    {
      title: 'Booking status',
      description: 'Shows a booking by its reference (BK-…).',
      inputSchema: z.object({
        reference: z.string().min(1).max(600).describe('The booking reference, e.g. BK-7Q2M9X'),
      }),
      annotations: READS,
    },
    async ({ reference }, ctx) => {
      const found = book.find(reference, callerOf(ctx));
      if (found === undefined) return failure('no such booking');
      return text(
        `Booking ${reference}: table for ${found.name} (${found.party}), booked by ${found.bookedBy}`,
      );
    },
  );
}
