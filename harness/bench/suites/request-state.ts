/**
 * Suite "requestState": one seal plus one open per operation, at three state sizes, for
 *
 * - stateguard's sealer (AES-256-GCM, bound to principal, tool, arguments and audience);
 * - the floor (see `request-state-floor.ts`): what any sealer must do at the least;
 * - the official SDK's `createRequestStateCodec` mint + verify (HMAC-SHA256 over WebCrypto, signed
 *   not encrypted), both as it ships (no `bind`) and with a `bind` of method and client id.
 */
import { randomBytes } from 'node:crypto';
import { createRequestStateCodec, type ServerContext } from '@modelcontextprotocol/server';
import { createStateSealer, type StateBinding } from '../../../src/index.js';
import {
  compare,
  formatCount,
  formatRatio,
  formatSpread,
  pairedRatio,
  type BenchSuite,
  type Budget,
  type Check,
  type Measurement,
  type RatioStats,
  type Table,
} from '../harness.js';
import { createFloorCodec } from './request-state-floor.js';

const SIZES = [16, 256, 4096] as const;
const FLOOR_TARGET = 1.5;
const SDK_TARGET = 3;
const SMALL_TOKEN_TARGET = 320;
/** Timed rounds per contender: the per-round ratios' median and quartiles need a few dozen. */
const ROUNDS = 21;

/** A state object whose JSON text is exactly `bytes` long: `{"d":"…"}`. */
function stateOfSize(bytes: number): { d: string } {
  const filler = 'abcdefghijklmnopqrstuvwxyz0123456789';
  const body = Array.from({ length: bytes - 8 }, (_, i) => filler[i % filler.length]).join('');
  const state = { d: body };
  if (JSON.stringify(state).length !== bytes) throw new Error(`state of ${bytes} bytes is off`);
  return state;
}

const binding: StateBinding = {
  principal: { clientId: 'bench-client', issuer: 'https://issuer.example', subject: 'user-42' },
  method: 'tools/call',
  name: 'create_report',
  args: { dataset: 'sales', format: 'pdf' },
};

/**
 * Bindings that never repeat within a memo's reach: a new principal and new arguments on every
 * operation, cycling through more of them than the sealer remembers. This is the sealer's cold path.
 */
const COLD_BINDINGS: StateBinding[] = Array.from({ length: 4096 }, (_, i) => ({
  principal: { clientId: `client-${i}`, issuer: 'https://issuer.example', subject: `user-${i}` },
  method: 'tools/call',
  name: 'create_report',
  args: { dataset: `sales-${i}`, format: 'pdf' },
}));

/** The parts of a `ServerContext` the bound SDK codec's `bind` reads; nothing else is touched. */
const sdkContext = {
  mcpReq: { method: 'tools/call' },
  http: { authInfo: { clientId: 'bench-client' } },
} as unknown as ServerContext;

function expectEqual(label: string, a: unknown, b: unknown): void {
  if (JSON.stringify(a) !== JSON.stringify(b)) throw new Error(`${label} did not round-trip`);
}

/** The requestState suite. */
export const requestStateSuite: BenchSuite = {
  name: 'requestState',
  summary: 'seal + open per operation: stateguard vs the floor vs the SDK codec',
  async run(budget: Budget) {
    // The floor ratio is the close call: many short rounds give its median and spread enough
    // samples, and five contenders at three sizes still fit in about 20 s.
    const own: Budget = {
      warmupMs: budget.warmupMs * 0.67,
      rounds: Math.max(budget.rounds, ROUNDS),
      roundMs: budget.roundMs * 0.42,
      // Every contender but the SDK codec is synchronous CPU work: count CPU time, which other
      // processes on a shared machine cannot inflate. Elapsed time is shown beside it.
      clock: 'cpu',
    };
    const key = randomBytes(32);
    const sealer = createStateSealer({ keys: key, audience: 'bench-reports' });
    // Another instance sharing the key: on the cold path it opens what `sealer` sealed, so neither
    // side has seen the principal or the arguments before.
    const twin = createStateSealer({ keys: key, audience: 'bench-reports' });
    const sdkPlain = createRequestStateCodec<unknown>({ key });
    const sdkBound = createRequestStateCodec<unknown>({
      key,
      bind: (ctx) =>
        `${ctx.mcpReq.method}\0${(ctx.http?.authInfo as { clientId?: string } | undefined)?.clientId ?? ''}`,
    });

    const rows: string[][] = [];
    const checks: Check[] = [];
    const sizeRows: string[][] = [];
    for (const size of SIZES) {
      const state = stateOfSize(size);
      const sealed = sealer.seal(state, binding);
      const floor = createFloorCodec(sealed.length, size);
      const floorToken = floor.seal(state);
      const sdkToken = await sdkPlain.mint(state);
      // Prove each contender really round-trips before timing it.
      expectEqual('stateguard', sealer.open(sealed, binding).state, state);
      expectEqual('floor', floor.open(floorToken), state);
      expectEqual('sdk', await sdkPlain.verify(sdkToken, sdkContext), state);
      expectEqual(
        'sdk+bind',
        await sdkBound.verify(await sdkBound.mint(state, sdkContext), sdkContext),
        state,
      );

      let cold = 0;
      const [sg, sgCold, fl, sdk, sdkB] = (await compare(
        [
          { label: 'stateguard', op: () => sealer.open(sealer.seal(state, binding), binding) },
          {
            label: 'stateguard, cold',
            op: () => {
              const b = COLD_BINDINGS[cold++ % COLD_BINDINGS.length] as StateBinding;
              return twin.open(sealer.seal(state, b), b);
            },
          },
          { label: 'floor', op: () => floor.open(floor.seal(state)) },
          {
            label: 'sdk codec',
            op: async () => sdkPlain.verify(await sdkPlain.mint(state), sdkContext),
          },
          {
            label: 'sdk codec + bind',
            op: async () => sdkBound.verify(await sdkBound.mint(state, sdkContext), sdkContext),
          },
        ],
        own,
      )) as [Measurement, Measurement, Measurement, Measurement, Measurement];

      const vsFloor = pairedRatio(sg, fl);
      const coldVsFloor = pairedRatio(sgCold, fl);
      const sdkVs = pairedRatio(sdk, sg);
      for (const m of [sg, sgCold, fl, sdk, sdkB]) {
        const ratio = pairedRatio(m, fl);
        rows.push([
          `${size} B`,
          m.label,
          formatCount(m.opsPerSec),
          formatCount(m.nsPerOp),
          formatCount(m.wallNsPerOp),
          formatRatio(ratio.median),
          m === fl ? '' : formatSpread(ratio),
        ]);
      }
      const withSpread = (r: RatioStats) => `${formatRatio(r.median)} (IQR ${formatSpread(r)})`;
      checks.push(
        {
          label: `${size} B: stateguard / floor`,
          actual: withSpread(vsFloor),
          target: `≤ ${formatRatio(FLOOR_TARGET)}`,
          met: vsFloor.median <= FLOOR_TARGET,
        },
        {
          label: `${size} B: stateguard, cold / floor (informational)`,
          actual: withSpread(coldVsFloor),
          target: `≤ ${formatRatio(FLOOR_TARGET)}`,
          met: coldVsFloor.median <= FLOOR_TARGET,
        },
        {
          label: `${size} B: sdk codec / stateguard`,
          actual: withSpread(sdkVs),
          target: `≥ ${formatRatio(SDK_TARGET)}`,
          met: sdkVs.median >= SDK_TARGET,
        },
      );
      sizeRows.push([
        `${size} B`,
        String(sealed.length),
        String(floorToken.length),
        String(sdkToken.length),
      ]);
      if (size === 16) {
        checks.push({
          label: '16 B state: stateguard token',
          actual: `${sealed.length} chars`,
          target: `≤ ${SMALL_TOKEN_TARGET}`,
          met: sealed.length <= SMALL_TOKEN_TARGET,
        });
      }
    }

    const tables: Table[] = [
      {
        title: `requestState: one seal + one open per operation (median of ${own.rounds} interleaved rounds)`,
        columns: ['state', 'contender', 'ops/s', 'cpu ns/op', 'wall ns/op', 'vs floor', 'IQR'],
        rows,
        notes: [
          'cpu ns/op: CPU time of this process per operation (every thread); ops/s and the ratios',
          '  follow it. wall ns/op: elapsed time (includes the SDK codec waiting on its thread pool).',
          'vs floor: median of the per-round CPU-time ratios (each round against the floor round next',
          '  to it); IQR: their first to third quartile, how much the ratio moved during this run.',
          'stateguard: binds principal {clientId, issuer, subject}, method, tool name, arguments, audience;',
          '  one flow: the same principal and arguments each time, as the rounds of a flow are.',
          'stateguard, cold: a new principal and new arguments every operation, opened by a twin',
          '  instance (another process in production): no remembered tag or digest ever helps.',
          'floor: JSON + AES-256-GCM (random IV, pooled draw as the sealer) + base64url, and back;',
          '  padded to the same token size.',
          'sdk codec: createRequestStateCodec mint + verify as shipped (no bind; signed, not encrypted).',
          'sdk codec + bind: the same with bind = method + client id (two more HMACs per operation).',
        ],
      },
      {
        title: 'token size (characters)',
        columns: ['state', 'stateguard', 'floor', 'sdk codec'],
        rows: sizeRows,
      },
    ];
    return { tables, checks };
  },
};
