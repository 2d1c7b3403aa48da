/**
 * `recipes-prompt`: the multi-round flows live in a prompt and a resource, not in any tool.
 *
 * `prompts/get` of `plan_menu` asks for guests and diet and then names the cuisine and the chef;
 * `resources/read` of `pantry://kitchen` or `pantry://cellar` asks which shelf and then lists it for
 * the cook. flawed: both states are JSON (base64 for the prompt, base64url for the pantry) acted on.
 * fixed: stateguard's state guard protects `prompts/get` and `resources/read` alike. Two more flawed
 * variants serve one flow each, so a verdict can be pinned on `prompts/get` or `resources/read` alone.
 * No tool, no handle.
 */
import { randomBytes } from 'node:crypto';
import { McpServer, type McpServerFactory } from '@modelcontextprotocol/server';
import { createStateGuard } from '../../../../src/sdk/guard.js';
import { quietLog, stderrLog, type FixtureLog } from '../../../../src/fixture/log.js';
import { callerFor } from '../caller.js';
import { encodedJson, guardedJson } from '../flow-state.js';
import { hostHttp, hostStdio } from '../host.js';
import { variantIn, type ForeignTwin, type IdentityCarrier } from '../twin.js';
import { menuState, registerMenuPrompt } from './menu.js';
import { pantryState, registerPantry } from './pantry.js';

const VARIANTS = ['flawed', 'fixed', 'flawed-prompt-only', 'flawed-pantry-only'] as const;
type Variant = (typeof VARIANTS)[number];
const INFO = { name: 'mise-en-place', version: '2.0.0' } as const;
const CARRIER: IdentityCarrier = { kind: 'bearer' };

function factoryFor(
  variant: Variant,
  transport: 'http' | 'stdio',
  log: FixtureLog,
): McpServerFactory {
  const callerOf = callerFor(transport, CARRIER);
  const fixed = variant === 'fixed';
  const guard = fixed
    ? createStateGuard({
        transport,
        keys: randomBytes(32),
        audience: INFO.name,
        principal: callerOf,
        onReject: ({ reason, method }) =>
          log(`[recipes] requestState refused on ${method} (${reason})`),
      })
    : undefined;
  const menu = fixed ? guardedJson(menuState) : encodedJson('base64', menuState);
  const pantry = fixed ? guardedJson(pantryState) : encodedJson('base64url', pantryState);
  return () => {
    const server = new McpServer(INFO);
    guard?.protect(server);
    if (variant !== 'flawed-pantry-only') registerMenuPrompt(server, { codec: menu, callerOf });
    if (variant !== 'flawed-prompt-only') registerPantry(server, { codec: pantry, callerOf });
    return server;
  };
}

const checked = (variant: string): Variant => variantIn('recipes-prompt', VARIANTS, variant);

const FLAWED = {
  'handle/cross-principal': 'skipped',
  'state/tamper': 'confirmed',
  'state/replay-principal': 'confirmed',
  'state/replay-request': 'confirmed',
  'state/replay-after-completion': 'skipped',
  'state/error-oracle': 'refuted',
} as const;

export const recipesPrompt: ForeignTwin = {
  id: 'recipes-prompt',
  summary: 'Menu planning whose multi-round flows are a prompt and a resource, never a tool',
  variants: VARIANTS,
  transports: ['http', 'stdio'],
  identity: { http: CARRIER, stdio: CARRIER },
  expected: {
    flawed: FLAWED,
    fixed: {
      'handle/cross-principal': 'skipped',
      'state/tamper': 'refuted',
      'state/replay-principal': 'refuted',
      'state/replay-request': 'refuted',
      'state/replay-after-completion': 'skipped',
      'state/error-oracle': 'refuted',
    },
    'flawed-prompt-only': FLAWED,
    'flawed-pantry-only': FLAWED,
  },
  startHttp: (variant) =>
    hostHttp({
      factory: factoryFor(checked(variant), 'http', quietLog),
      carrier: CARRIER,
      path: '/mcp',
    }),
  serveStdio: (variant) => hostStdio(factoryFor(checked(variant), 'stdio', stderrLog), stderrLog),
};
