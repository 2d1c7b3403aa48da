/**
 * `npm run soak`: a guarded fleet under load and faults, next to the same fleet unguarded.
 *
 *     node dist-harness/harness/soak/main.js [--instances 3] [--clients 8] [--clean-seconds 20] …
 *
 * Loopback only; bounded in time and in flows; stops by itself. Exit code 0 when the guarded fleet
 * shows no double effect, no lost flow, no unexpected answer and no accepted late replay; 1
 * otherwise; 2 on bad usage.
 */
import { cpus } from 'node:os';
import { parseArgs } from 'node:util';
import { redisServerMissing } from '../bench/redis-server.js';
import { FAULT_KINDS, type FaultKind } from './faults.js';
import { renderReport, summarize, verdictFailures } from './report.js';
import { DEFAULT_SOAK_OPTIONS, runSoak, type SoakOptions } from './run.js';

const D = DEFAULT_SOAK_OPTIONS;
const USAGE = `Usage: npm run soak -- [options]

  --instances N         instances per fleet (default ${D.instances})
  --clients N           concurrent clients per fleet (default ${D.clients})
  --warmup-seconds S    unmeasured load per fleet first (default ${D.warmupSeconds})
  --clean-seconds S     clean load per fleet (default ${D.cleanSeconds})
  --window-seconds S    least length of each fault window (default ${D.windowSeconds})
  --gap-seconds S       recovery time after each fault (default ${D.gapSeconds})
  --down-ms MS          how long Redis or an instance stays down (default ${D.downMs})
  --pause-ms MS         how long Redis stays paused (default ${D.pauseMs})
  --ledger-timeout-ms MS  the Redis ledger's command bound (default ${D.ledgerTimeoutMs})
  --clock-skew-ms MS    the ledgers' clockSkewMs (default ${D.clockSkewMs}; one host, one clock)
  --round-timeout-ms MS the client's bound per round: no answer by then is a lost flow (default ${D.roundTimeoutMs})
  --retries N           resends of a round that failed in transport (default ${D.retries})
  --max-flows N         flows started at most per fleet (default ${D.maxFlows})
  --late-replays N      used final rounds sent again after each fault (default ${D.lateReplays})
  --faults a,b          fault kinds, in order (default ${FAULT_KINDS.join(',')})
  --no-unguarded        skip the unguarded fleet
  --no-skewed-clocks    run every instance on the host's clock (default: 0, +80 %, -80 % of the skew)
  -h, --help            this help
`;

const INTEGER_FLAGS = {
  instances: 'instances',
  clients: 'clients',
  'warmup-seconds': 'warmupSeconds',
  'clean-seconds': 'cleanSeconds',
  'window-seconds': 'windowSeconds',
  'gap-seconds': 'gapSeconds',
  'down-ms': 'downMs',
  'pause-ms': 'pauseMs',
  'ledger-timeout-ms': 'ledgerTimeoutMs',
  'clock-skew-ms': 'clockSkewMs',
  'round-timeout-ms': 'roundTimeoutMs',
  retries: 'retries',
  'max-flows': 'maxFlows',
  'late-replays': 'lateReplays',
} as const satisfies Record<string, keyof SoakOptions>;

function parse(argv: string[]): SoakOptions | undefined {
  const { values } = parseArgs({
    args: argv,
    options: {
      ...Object.fromEntries(Object.keys(INTEGER_FLAGS).map((f) => [f, { type: 'string' }])),
      faults: { type: 'string' },
      'no-unguarded': { type: 'boolean', default: false },
      'no-skewed-clocks': { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    } as Record<string, { type: 'string' | 'boolean'; short?: string; default?: boolean }>,
  });
  if (values['help'] === true) return undefined;
  const options: SoakOptions = {
    ...D,
    unguarded: values['no-unguarded'] !== true,
    skewedClocks: values['no-skewed-clocks'] !== true,
  };
  for (const [flag, key] of Object.entries(INTEGER_FLAGS)) {
    const raw = values[flag];
    if (typeof raw !== 'string') continue;
    const value = Number(raw);
    const least = ['retries', 'lateReplays', 'clockSkewMs', 'warmupSeconds'].includes(key) ? 0 : 1;
    if (!Number.isSafeInteger(value) || value < least) {
      throw new RangeError(`--${flag} must be an integer ≥ ${least}`);
    }
    options[key] = value;
  }
  if (options.instances < 2) throw new RangeError('--instances must be at least 2');
  if (typeof values['faults'] === 'string') {
    const kinds = values['faults'].split(',').filter((k) => k !== '');
    const unknown = kinds.filter((k) => !(FAULT_KINDS as readonly string[]).includes(k));
    if (unknown.length > 0) throw new RangeError(`unknown fault(s): ${unknown.join(', ')}`);
    options.faults = kinds as FaultKind[];
  }
  return options;
}

async function main(argv: string[]): Promise<number> {
  let options: SoakOptions | undefined;
  try {
    options = parse(argv);
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    console.error(USAGE);
    return 2;
  }
  if (options === undefined) {
    process.stdout.write(USAGE);
    return 0;
  }
  const missing = redisServerMissing();
  if (missing !== undefined) {
    console.error(`soak: ${missing}`);
    return 2;
  }
  const header =
    `node ${process.version} · ${process.platform}/${process.arch} · ${cpus().length} cores · ` +
    `${options.instances} instances per fleet, ${options.clients} clients, ` +
    `clean ${options.cleanSeconds} s per fleet, fault windows ${options.windowSeconds} s + ` +
    `${options.gapSeconds} s gap, round bound ${options.roundTimeoutMs} ms, ` +
    `${options.retries} resends on transport errors`;
  const result = await runSoak(options, (line) => process.stderr.write(`[soak] ${line}\n`));
  console.log(renderReport({ header, ...result }));
  const guarded = result.runs.find((run) => run.guarded);
  return guarded && verdictFailures(summarize(guarded), result.faults).length === 0 ? 0 : 1;
}

process.exitCode = await main(process.argv.slice(2));
