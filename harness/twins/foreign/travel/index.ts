/**
 * `travel`: a trip-booking server in camelCase, with nested argument objects, enums and nested
 * `structuredContent`; nothing about it looks like the workspace twins.
 *
 * `bookTrip` mints a booking code (at `structuredContent.booking.confirmation.bookingCode`),
 * `getItinerary` takes it back inside `lookup`, and `changeSeat` asks for confirmation over two rounds.
 * flawed: codes are looked up with no owner check, and the seat-change state is base64url JSON acted
 * on. fixed: codes are stateguard handles bound to the traveller, and the server is protected by
 * stateguard's state guard.
 */
import { randomBytes } from 'node:crypto';
import {
  McpServer,
  type McpServerFactory,
  type ToolAnnotations,
} from '@modelcontextprotocol/server';
import * as z from 'zod';
import { createStateGuard } from '../../../../src/sdk/guard.js';
import { quietLog, stderrLog, type FixtureLog } from '../../../../src/fixture/log.js';
import { callerFor, type CallerOf } from '../caller.js';
import { encodedJson, guardedJson, type FlowCodec } from '../flow-state.js';
import { hostHttp, hostStdio } from '../host.js';
import { variantIn, type ForeignTwin, type IdentityCarrier } from '../twin.js';
import {
  CABIN_CLASSES,
  createBookingDesk,
  SEAT_LETTERS,
  type Booking,
  type BookingDesk,
} from './desk.js';
import { changeSeat, seatChangeState, type SeatChangeState } from './seat-change.js';

const VARIANTS = ['flawed', 'fixed'] as const;
type Variant = (typeof VARIANTS)[number];
const INFO = { name: 'wayfarer-travel', version: '3.2.0' } as const;
const STDIO_CARRIER: IdentityCarrier = { kind: 'bearer' };

const closed: ToolAnnotations = { openWorldHint: false };

const bookTripInput = z.object({
  trip: z.object({
    destination: z.string().min(1).max(200).describe('City or airport to travel to'),
    cabinClass: z.enum(CABIN_CLASSES),
    travellers: z.number().int().min(1).max(9).describe('How many people travel'),
  }),
  notes: z.string().max(2000).optional().describe('Anything the agent should know'),
});

const bookTripOutput = z.object({
  booking: z.object({
    confirmation: z.object({ bookingCode: z.string() }),
    status: z.enum(['confirmed']),
  }),
});

const codeField = z.string().min(1).max(600).describe('The bookingCode from bookTrip');

function bookingView(booking: Booking) {
  return {
    booking: {
      confirmation: { bookingCode: booking.bookingCode },
      status: 'confirmed',
      trip: booking.trip,
      traveller: booking.traveller,
      ...(booking.notes === undefined ? {} : { notes: booking.notes }),
      ...(booking.seat === undefined ? {} : { seat: booking.seat }),
    },
  };
}

function registerTools(
  server: McpServer,
  deps: {
    desk: BookingDesk;
    callerOf: CallerOf;
    codec: FlowCodec<SeatChangeState>;
  },
): void {
  server.registerTool(
    'bookTrip',
    {
      title: 'Book a trip',
      description: 'Book a trip. Returns a booking code to look the itinerary up or change seats.',
      inputSchema: bookTripInput,
      outputSchema: bookTripOutput,
      annotations: {
        ...closed,
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: false,
      },
    },
    async ({ trip, notes }, ctx) => {
      const booking = deps.desk.book(deps.callerOf(ctx), trip, notes);
      return {
        content: [{ type: 'text', text: `Your trip to ${trip.destination} is booked.` }],
        structuredContent: {
          booking: { confirmation: { bookingCode: booking.bookingCode }, status: 'confirmed' },
        },
      };
    },
  );

  server.registerTool(
    'getItinerary',
    {
      title: 'Get itinerary',
      description: 'Look a booking up by its code: trip, traveller, notes and seat.',
      inputSchema: z.object({ lookup: z.object({ bookingCode: codeField }) }),
      annotations: { ...closed, readOnlyHint: true },
    },
    async ({ lookup }, ctx) => {
      const booking = deps.desk.find(lookup.bookingCode, deps.callerOf(ctx));
      if (booking === undefined) {
        return {
          content: [{ type: 'text', text: 'No booking matches that code.' }],
          isError: true,
        };
      }
      const { destination, cabinClass } = booking.trip;
      return {
        content: [
          { type: 'text', text: `${booking.traveller} flies ${cabinClass} to ${destination}.` },
        ],
        structuredContent: bookingView(booking),
      };
    },
  );

  server.registerTool(
    'changeSeat',
    {
      title: 'Change seat',
      description: 'Move a booking to another seat. Asks the traveller to confirm first.',
      inputSchema: z.object({
        bookingCode: codeField,
        seat: z.object({ row: z.number().int().min(1).max(60), letter: z.enum(SEAT_LETTERS) }),
      }),
      annotations: { ...closed, readOnlyHint: false, destructiveHint: false, idempotentHint: true },
    },
    async (args, ctx) => changeSeat(args, ctx, deps),
  );
}

function factoryFor(
  variant: Variant,
  transport: 'http' | 'stdio',
  log: FixtureLog,
): McpServerFactory {
  const callerOf = callerFor(transport, STDIO_CARRIER);
  const desk = createBookingDesk({
    policy: variant === 'fixed' ? 'bound' : 'open',
    audience: INFO.name,
    log,
  });
  const guard =
    variant === 'fixed'
      ? createStateGuard({
          transport,
          keys: randomBytes(32),
          audience: INFO.name,
          principal: callerOf,
          onReject: ({ reason }) => log(`[travel] requestState refused (${reason})`),
        })
      : undefined;
  const codec =
    variant === 'fixed' ? guardedJson(seatChangeState) : encodedJson('base64url', seatChangeState);
  return () => {
    const server = new McpServer(INFO);
    guard?.protect(server);
    registerTools(server, { desk, callerOf, codec });
    return server;
  };
}

const checked = (variant: string): Variant => variantIn('travel', VARIANTS, variant);

export const travel: ForeignTwin = {
  id: 'travel',
  // The flaw lives on tools the call plan leaves alone by default: the proof scan has the user's word.
  allowTools: ['bookTrip', 'changeSeat'],
  summary:
    'Trip booking in camelCase: nested arguments and structuredContent, a two-round seat change',
  variants: VARIANTS,
  transports: ['http', 'stdio'],
  identity: { http: { kind: 'bearer' }, stdio: STDIO_CARRIER },
  expected: {
    flawed: {
      'handle/cross-principal': 'confirmed',
      'state/tamper': 'confirmed',
      'state/replay-principal': 'confirmed',
      'state/replay-request': 'confirmed',
      'state/replay-after-completion': 'skipped',
      'state/error-oracle': 'refuted',
    },
    fixed: {
      'handle/cross-principal': 'refuted',
      'state/tamper': 'refuted',
      'state/replay-principal': 'refuted',
      'state/replay-request': 'refuted',
      'state/replay-after-completion': 'skipped',
      'state/error-oracle': 'refuted',
    },
  },
  startHttp: (variant) =>
    hostHttp({
      factory: factoryFor(checked(variant), 'http', quietLog),
      carrier: { kind: 'bearer' },
      path: '/api/mcp',
    }),
  serveStdio: (variant) => hostStdio(factoryFor(checked(variant), 'stdio', stderrLog), stderrLog),
};
