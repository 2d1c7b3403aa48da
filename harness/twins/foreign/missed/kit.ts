/**
 * What the missed-shape twins share: the official SDK's `McpServer`, a bearer identity over HTTP
 * and the `_meta` principal over stdio, a `flawed` and a `fixed` variant, no multi-round flow (so
 * every state probe is `skipped`), and one expected verdict for the handle probe per variant.
 */
import {
  McpServer,
  type CallToolResult,
  type jsonSchemaValidator,
  type McpServerFactory,
} from '@modelcontextprotocol/server';
import type { Verdict } from '../../../../src/probe/model/probe.js';
import { quietLog, stderrLog, type FixtureLog } from '../../../../src/fixture/log.js';
import { callerFor, type CallerOf } from '../caller.js';
import { hostHttp, hostStdio } from '../host.js';
import { variantIn, type ForeignTwin, type IdentityCarrier } from '../twin.js';

export const VARIANTS = ['flawed', 'fixed'] as const;
export type Variant = (typeof VARIANTS)[number];
const CARRIER: IdentityCarrier = { kind: 'bearer' };

const NO_FLOWS = {
  'state/tamper': 'skipped',
  'state/replay-principal': 'skipped',
  'state/replay-request': 'skipped',
  'state/replay-after-completion': 'skipped',
  'state/error-oracle': 'skipped',
} as const;

/** A tool error the way the SDK's handlers write one. */
export const failure = (text: string): CallToolResult => ({
  content: [{ type: 'text', text }],
  isError: true,
});

/**
 * A validator that lets every call through. The SDK validates a tool's arguments before its handler
 * runs; a twin that counts or logs every call hands the SDK this one (`fromJsonSchema(schema,
 * ACCEPT_ALL)`), so each call reaches the handler, and the handlers check what they read.
 */
export const ACCEPT_ALL: jsonSchemaValidator = {
  getValidator: () => (input: unknown) => ({
    valid: true,
    data: input as never,
    errorMessage: undefined,
  }),
};

/** What one twin says about itself, and how it builds its server. */
export interface KitSpec {
  readonly id: string;
  readonly summary: string;
  readonly info: { readonly name: string; readonly version: string };
  /** The handle probe's verdict, per variant. */
  readonly handle: Readonly<Record<Variant, Verdict>>;
  /** The tools a proof scan is given the user's word for (see `ForeignTwin.allowTools`). */
  readonly allowTools?: readonly string[];
  /**
   * Called once per process (what it keeps outlives the per-request SDK server); registers the
   * twin's tools on each request's server.
   */
  build(variant: Variant, log: FixtureLog): (server: McpServer, callerOf: CallerOf) => void;
}

function factoryFor(
  spec: KitSpec,
  variant: string,
  transport: 'http' | 'stdio',
  log: FixtureLog,
): McpServerFactory {
  const register = spec.build(variantIn(spec.id, VARIANTS, variant), log);
  const callerOf = callerFor(transport, CARRIER);
  return () => {
    const server = new McpServer(spec.info);
    register(server, callerOf);
    return server;
  };
}

/** The foreign twin `spec` describes. */
export function kitTwin(spec: KitSpec): ForeignTwin {
  return {
    id: spec.id,
    summary: spec.summary,
    ...(spec.allowTools === undefined ? {} : { allowTools: spec.allowTools }),
    variants: VARIANTS,
    transports: ['http', 'stdio'],
    identity: { http: CARRIER, stdio: CARRIER },
    expected: {
      flawed: { 'handle/cross-principal': spec.handle.flawed, ...NO_FLOWS },
      fixed: { 'handle/cross-principal': spec.handle.fixed, ...NO_FLOWS },
    },
    startHttp: (variant) =>
      hostHttp({
        factory: factoryFor(spec, variant, 'http', quietLog),
        carrier: CARRIER,
        path: `/${spec.id}`,
      }),
    serveStdio: (variant) => hostStdio(factoryFor(spec, variant, 'stdio', stderrLog), stderrLog),
  };
}
