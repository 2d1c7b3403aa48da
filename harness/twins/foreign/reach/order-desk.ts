/**
 * `order-desk`: an id handed out in a resource's (or a prompt's) text, taken back by a read tool.
 * No tool mints anything. `resources/read orders://recent` (listed by `resources/list`) answers
 * "Your most recent order is ord-7Q2M9X: 2 × teapot, placed today." for the caller, whose order is
 * made on first contact, as a staging server holds each user's data before any scan.
 * `prompts/get order_help({ topic })` answers a message that names the same order.
 * `show_order({ order })` (read-only) names the order's items and who placed it. A scanner that
 * offers only what tools mint never hands `show_order` an id.
 *
 * flawed: ids are random and looked up with no owner check (B reads A's order); only the
 * resource hands the id out.
 * flawed-prompt: the same, but only the prompt's text hands the id out (no resource).
 * fixed: both hand the id out, and ids are stateguard handles bound to the owner; anyone else's is
 * "No order under that number."
 */
import { McpServer, type McpServerFactory } from '@modelcontextprotocol/server';
import * as z from 'zod';
import { quietLog, stderrLog, type FixtureLog } from '../../../../src/fixture/log.js';
import { callerFor, type CallerOf } from '../caller.js';
import { hostHttp, hostStdio } from '../host.js';
import { failure } from '../missed/kit.js';
import { owned, type Owned } from '../missed/owned.js';
import { variantIn, type ForeignTwin, type IdentityCarrier } from '../twin.js';

const VARIANTS = ['flawed', 'flawed-prompt', 'fixed'] as const;
type Variant = (typeof VARIANTS)[number];
const INFO = { name: 'order-desk', version: '0.9.2' } as const;
const CARRIER: IdentityCarrier = { kind: 'bearer' };
const RECENT = 'orders://recent';
/** Most principals given an order; the oldest is forgotten past it. */
const MAX_CUSTOMERS = 5000;

interface Order {
  readonly items: string;
  readonly owner: string;
}

/** Each caller's one order, made on first contact (the data a staging server already holds). */
function ordersOf(orders: Owned<Order>): (caller: string) => string {
  const byCaller = new Map<string, string>();
  return (caller) => {
    const known = byCaller.get(caller);
    if (known !== undefined) return known;
    if (byCaller.size >= MAX_CUSTOMERS) byCaller.delete(byCaller.keys().next().value as string);
    const id = orders.issue(caller, { items: '2 × teapot', owner: caller });
    byCaller.set(caller, id);
    return id;
  };
}

function register(
  server: McpServer,
  variant: Variant,
  orders: Owned<Order>,
  recentOf: (caller: string) => string,
  callerOf: CallerOf,
): void {
  if (variant !== 'flawed-prompt')
    server.registerResource(
      'recent-order',
      RECENT,
      { title: 'Your most recent order', mimeType: 'text/plain' },
      (uri, ctx) => ({
        contents: [
          {
            uri: uri.href,
            mimeType: 'text/plain',
            text: `Your most recent order is ${recentOf(callerOf(ctx))}: 2 × teapot, placed today.`,
          },
        ],
      }),
    );
  if (variant !== 'flawed')
    server.registerPrompt(
      'order_help',
      {
        description: 'Help with your most recent order.',
        argsSchema: z.object({ topic: z.string().min(1).max(200) }),
      },
      ({ topic }, ctx) => ({
        messages: [
          {
            role: 'user',
            content: {
              type: 'text',
              text: `I need help with order ${recentOf(callerOf(ctx))} about: ${topic}`,
            },
          },
        ],
      }),
    );
  server.registerTool(
    'show_order',
    {
      description: 'The status of an order.',
      inputSchema: z.object({ order: z.string().min(1).max(1024) }),
      annotations: { readOnlyHint: true },
    },
    ({ order }, ctx) => {
      const o = orders.open(order, callerOf(ctx));
      if (o === undefined) return failure('No order under that number.');
      return {
        content: [{ type: 'text', text: `Order ${order}: ${o.items}, placed by ${o.owner}.` }],
      };
    },
  );
}

function factoryFor(
  variant: Variant,
  transport: 'http' | 'stdio',
  log: FixtureLog,
): McpServerFactory {
  const callerOf = callerFor(transport, CARRIER);
  const orders = owned<Order>({
    variant: variant === 'fixed' ? 'fixed' : 'flawed',
    audience: INFO.name,
    kind: 'order',
    prefix: 'ord-',
    log,
  });
  const recentOf = ordersOf(orders);
  return () => {
    const server = new McpServer(INFO);
    register(server, variant, orders, recentOf, callerOf);
    return server;
  };
}

const variantOf = (variant: string): Variant => variantIn('order-desk', VARIANTS, variant);

const NO_FLOWS = {
  'state/tamper': 'skipped',
  'state/replay-principal': 'skipped',
  'state/replay-request': 'skipped',
  'state/replay-after-completion': 'skipped',
  'state/error-oracle': 'skipped',
} as const;

/** The `order-desk` twin. */
export const orderDesk: ForeignTwin = {
  id: 'order-desk',
  summary: "An order id handed out only in a resource's or a prompt's text, read back by a tool",
  variants: VARIANTS,
  transports: ['http', 'stdio'],
  identity: { http: CARRIER, stdio: CARRIER },
  expected: {
    flawed: { 'handle/cross-principal': 'confirmed', ...NO_FLOWS },
    'flawed-prompt': { 'handle/cross-principal': 'confirmed', ...NO_FLOWS },
    fixed: { 'handle/cross-principal': 'refuted', ...NO_FLOWS },
  },
  startHttp: (variant) =>
    hostHttp({
      factory: factoryFor(variantOf(variant), 'http', quietLog),
      carrier: CARRIER,
      path: '/orders/mcp',
    }),
  serveStdio: (variant) => hostStdio(factoryFor(variantOf(variant), 'stdio', stderrLog), stderrLog),
};
