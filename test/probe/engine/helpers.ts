/**
 * Shared set-up of the engine tests: real test servers, the two identities, session options.
 */
import { fileURLToPath } from 'node:url';
import { builtPath } from '../../helpers/cli.js';
import type { Probe, ProbeContext, ProbeDecision } from '../../../src/probe/model/probe.js';
import { defineProbe } from '../../../src/probe/model/probe.js';
import { createRedactor } from '../../../src/probe/evidence/evidence.js';
import type { SessionOptions } from '../../../src/probe/target/session.js';
import { DEFAULT_PRINCIPAL_META_KEY } from '../../../src/probe/target/session.js';
import type { Evidence } from '../../../src/probe/model/evidence.js';
import type { Target } from '../../../src/probe/model/target.js';

/** Two identity secrets that must never appear in evidence or output. */
export const IDS = { A: 'alice-secret-token-7f3a9c', B: 'bob-secret-token-2d81e4' } as const;

/** The stdio test server script. */
export const STDIO_SERVER = fileURLToPath(
  new URL('../../servers/stdio-server.ts', import.meta.url),
);

/** A stdio target running the test server in `scenario`. */
export function stdioTarget(scenario: string): Target {
  return {
    kind: 'stdio',
    command: process.execPath,
    // This run's build of the server (test/helpers/built.ts): no tsx to load each time.
    args: [builtPath('test/servers/stdio-server.ts'), scenario],
  };
}

/** Session options for tests; `timeoutMs` short unless a test needs more. */
export function sessionOptions(overrides: Partial<SessionOptions> = {}): SessionOptions {
  return {
    identities: IDS,
    principalMetaKey: DEFAULT_PRINCIPAL_META_KEY,
    timeoutMs: 4000,
    maxAnswerBytes: 1024 * 1024,
    redactor: createRedactor(IDS),
    clientInfo: { name: 'stateguard-test', version: '0.0.0' },
    ...overrides,
  };
}

/** The label of a piece of evidence, or its kind when it has none. */
export function labelOf(e: Evidence): string {
  return 'label' in e ? e.label : e.kind;
}

/** A probe whose run is `run` (id `test/inline`), for driving the runner directly. */
export function inline(run: (ctx: ProbeContext) => Promise<ProbeDecision>, maxCalls = 5): Probe {
  return defineProbe({
    id: 'test/inline',
    title: 'An inline probe',
    flaw: 'The flaw',
    severity: 'low',
    rationale: 'Exercises the runner.',
    references: [],
    maxCalls,
    run,
  });
}
