/**
 * The travel twin's bookings, and the two ways a variant looks a booking code up.
 *
 * - `open` (flawed): `TRV-` plus 16 random hex digits, kept in a table and looked up by code alone.
 *   Possession of the code is the whole check: the migration mistake the handle probe looks for.
 * - `bound` (fixed): `TRV-` plus a stateguard handle bound to the traveller who booked; the code only
 *   opens for that traveller, and every refusal (foreign, forged, stale) reads the same.
 */
import { randomBytes } from 'node:crypto';
import { createHandleBinder } from '../../../../src/bind/handle.js';
import { HandleRejectedError } from '../../../../src/errors.js';
import type { FixtureLog } from '../../../../src/fixture/log.js';

export const CABIN_CLASSES = ['economy', 'business'] as const;
export type CabinClass = (typeof CABIN_CLASSES)[number];
export const SEAT_LETTERS = ['A', 'B', 'C', 'D', 'E', 'F'] as const;
export type SeatLetter = (typeof SEAT_LETTERS)[number];

export interface Trip {
  destination: string;
  cabinClass: CabinClass;
  travellers: number;
}

export interface Seat {
  row: number;
  letter: SeatLetter;
}

export interface Booking {
  readonly bookingCode: string;
  readonly traveller: string;
  readonly trip: Trip;
  readonly notes: string | undefined;
  seat: Seat | undefined;
}

/** How booking codes are checked. */
export type DeskPolicy = 'open' | 'bound';

export interface BookingDesk {
  book(traveller: string, trip: Trip, notes: string | undefined): Booking;
  /** The booking `code` names for `traveller`, or `undefined` (unknown, foreign, forged, stale). */
  find(code: string, traveller: string): Booking | undefined;
}

/** The prefix of every booking code. */
export const CODE_PREFIX = 'TRV-';
/** Most bookings a desk remembers; the oldest are forgotten first. */
export const MAX_BOOKINGS = 5000;
const KIND = 'booking';

/** A desk for one running twin (shared by every request it serves). */
export function createBookingDesk(options: {
  policy: DeskPolicy;
  audience: string;
  log: FixtureLog;
}): BookingDesk {
  // Keyed by the code (open) or the handle's random id (bound); insertion order drives eviction.
  const table = new Map<string, Booking>();
  const keep = (key: string, booking: Booking): void => {
    if (table.size >= MAX_BOOKINGS) {
      const oldest = table.keys().next().value;
      if (oldest !== undefined) table.delete(oldest);
    }
    table.set(key, booking);
  };

  if (options.policy === 'open') {
    return {
      book(traveller, trip, notes) {
        const bookingCode = `${CODE_PREFIX}${randomBytes(8).toString('hex').toUpperCase()}`;
        const booking: Booking = { bookingCode, traveller, trip, notes, seat: undefined };
        keep(bookingCode, booking);
        return booking;
      },
      // The flaw: the code alone finds the booking, whoever asks.
      find: (code) => table.get(code),
    };
  }

  const binder = createHandleBinder({ keys: randomBytes(32), audience: options.audience });
  return {
    book(traveller, trip, notes) {
      const { handle, claims } = binder.issue(traveller, KIND);
      const booking: Booking = {
        bookingCode: `${CODE_PREFIX}${handle}`,
        traveller,
        trip,
        notes,
        seat: undefined,
      };
      keep(claims.handleId, booking);
      return booking;
    },
    find(code, traveller) {
      if (!code.startsWith(CODE_PREFIX)) return undefined;
      try {
        const claims = binder.open(code.slice(CODE_PREFIX.length), traveller, KIND);
        return table.get(claims.handleId);
      } catch (error) {
        if (!(error instanceof HandleRejectedError)) throw error;
        options.log(`[travel] booking code refused (${error.reason})`);
        return undefined;
      }
    },
  };
}
