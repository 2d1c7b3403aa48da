/**
 * The era rules: which protocol a target speaks. They are the spec's and liberal: a
 * `server/discover` result or a recognised modern error means modern; a modern `tools/list`
 * answered with a `resultType` means modern even without `server/discover`; anything else falls back
 * to a legacy `initialize`. A target that answers none of these is `unknown`, and the reading names
 * what did not answer.
 */
import type { Outcome, ProtocolInfo } from '../model/wire.js';
import { initializeAs } from './legacy-handshake.js';
import { metaServerInfo, readServerInfo, type OpeningStep } from './session-lists.js';
import { MODERN_VERSION } from './session-options.js';
import type { Wire } from './session-wire.js';

// Errors only a 2026-07-28 server sends: seeing one means modern, and no fallback (spec §versioning).
const MODERN_ERRORS = new Set([-32020, -32021, -32022]);
// Failures that mean nobody is there to fall back to.
const UNREACHABLE = new Set(['spawn', 'transport', 'closed', 'deadline']);

/** What the era rules found. */
export interface EraReading {
  readonly era: ProtocolInfo['era'];
  /** The target answered `server/discover` as the spec says. */
  readonly discover: boolean;
  readonly serverInfo?: ProtocolInfo['serverInfo'];
  /** The server's capabilities, as its `initialize` or its `server/discover` answered them. */
  readonly capabilities?: ProtocolInfo['capabilities'];
  /** A modern `tools/list` sent to learn the era: its answer is the first page of tools. */
  readonly modernList?: Outcome;
  /** Where the target strays from the spec of its era, so far. */
  readonly deviations: string[];
  /** Set when the target answered nothing usable; names what did not answer. */
  readonly problem?: string;
}

/** What asking as a modern client said: `server/discover`, and a modern `tools/list` if needed. */
interface ModernAnswers {
  readonly discovered: Outcome;
  readonly modernList?: Outcome;
  readonly modern: boolean;
  readonly discover: boolean;
  readonly serverInfo?: ProtocolInfo['serverInfo'];
  /** The capabilities `server/discover` named, when it answered and they are of a sane size. */
  readonly capabilities?: ProtocolInfo['capabilities'];
}

/** One line on an outcome, for the list of what was tried. */
export function describe(outcome: Outcome): string {
  if (outcome.kind === 'failure') return `${outcome.failure}: ${outcome.detail}`;
  if (outcome.kind === 'error') return `JSON-RPC error ${outcome.code}`;
  return 'a result';
}

const unreachable = (o: Outcome): boolean => o.kind === 'failure' && UNREACHABLE.has(o.failure);

/** `server/discover`, and unless it settled the era (or nobody answered), a modern `tools/list`. */
async function askModern(step: OpeningStep, tried: string[]): Promise<ModernAnswers> {
  const d = await step('server/discover', 'era: server/discover');
  tried.push(`server/discover (${describe(d)})`);
  if (
    d.kind === 'result' &&
    (Array.isArray(d.result.supportedVersions) || 'resultType' in d.result)
  ) {
    const versions = d.result.supportedVersions;
    if (!Array.isArray(versions) || versions.includes(MODERN_VERSION)) {
      const capabilities = capabilitiesOf(d.result.capabilities);
      return {
        discovered: d,
        modern: true,
        discover: true,
        serverInfo: metaServerInfo(d.result),
        ...(capabilities === undefined ? {} : { capabilities }),
      };
    }
    return { discovered: d, modern: false, discover: false };
  }
  if (d.kind === 'error' && MODERN_ERRORS.has(d.code))
    return { discovered: d, modern: true, discover: false };
  if (unreachable(d) || (d.kind === 'failure' && d.failure === 'timeout'))
    return { discovered: d, modern: false, discover: false };
  // Liberal: a server without server/discover that answers a modern tools/list is modern.
  const modernList = await step('tools/list', 'era: modern tools/list');
  tried.push(`tools/list (${describe(modernList)})`);
  const modern = modernList.kind === 'result' && 'resultType' in modernList.result;
  return { discovered: d, modernList, modern, discover: false };
}

type Fallback = Pick<EraReading, 'era' | 'serverInfo' | 'capabilities' | 'deviations' | 'problem'>;

// A hostile `initialize` answer's capabilities are kept only this large (serialized).
const MAX_CAPABILITIES_CHARS = 16 * 1024;

/** `value` when it is a capabilities object of a sane size. */
function capabilitiesOf(value: unknown): ProtocolInfo['capabilities'] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  return JSON.stringify(value).length <= MAX_CAPABILITIES_CHARS
    ? (value as Record<string, unknown>)
    : undefined;
}

/** The legacy handshake as A, once the modern questions settled nothing. */
async function fallBackToLegacy(
  wire: Wire,
  step: OpeningStep,
  asked: ModernAnswers,
  tried: string[],
): Promise<Fallback> {
  wire.framing = 'legacy';
  const init = (await initializeAs(wire, 'A', step)).outcome;
  tried.push(`initialize (${describe(init)})`);
  if (init.kind === 'result' && typeof init.result.protocolVersion === 'string') {
    wire.negotiated = init.result.protocolVersion;
    const capabilities = capabilitiesOf(init.result.capabilities);
    return {
      era: 'legacy',
      serverInfo: readServerInfo(init.result.serverInfo),
      ...(capabilities === undefined ? {} : { capabilities }),
      deviations: [],
    };
  }
  wire.framing = 'modern';
  const listed = asked.modernList;
  if (listed?.kind === 'result' && Array.isArray(listed.result.tools) && !unreachable(init)) {
    // It lists tools with no handshake and refuses the handshake: the stateless core, written
    // loosely. Each omission is an observation, not a reason to stop.
    return {
      era: 'modern',
      deviations: [`initialize refused (${describe(init)}) while tools/list answered without one`],
    };
  }
  return {
    era: 'unknown',
    deviations: [],
    problem: `the target answered neither as a 2026-07-28 nor as an older MCP server: ${tried.join('; ')}`,
  };
}

/**
 * Learns the era of the target behind `wire` (see the module comment), sending through `step`, and
 * sets the framing its later requests take.
 */
export async function learnEra(wire: Wire, step: OpeningStep): Promise<EraReading> {
  const tried: string[] = [];
  const asked = await askModern(step, tried);
  const found: Fallback = asked.modern
    ? { era: 'modern', deviations: [] }
    : unreachable(asked.discovered) ||
        (asked.modernList !== undefined && unreachable(asked.modernList))
      ? {
          era: 'unknown',
          deviations: [],
          problem: `the target did not answer: ${tried.join('; ')}`,
        }
      : await fallBackToLegacy(wire, step, asked, tried);
  wire.era = found.era;
  if (found.era === 'modern' && !asked.discover)
    found.deviations.unshift(`no server/discover (${describe(asked.discovered)})`);
  const serverInfo = found.serverInfo ?? asked.serverInfo;
  // A modern server's own `server/discover` answer names its capabilities: kept, so no probe asks
  // the same question again (the task probes read the Tasks extension there).
  const capabilities =
    found.capabilities ?? (found.era === 'modern' ? asked.capabilities : undefined);
  return {
    ...found,
    ...(capabilities === undefined ? {} : { capabilities }),
    discover: asked.discover,
    ...(serverInfo === undefined ? {} : { serverInfo }),
    ...(asked.modernList === undefined ? {} : { modernList: asked.modernList }),
  };
}
