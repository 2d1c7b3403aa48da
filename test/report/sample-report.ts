/**
 * One fixed RunReport with every verdict, a control that did not hold, an observation, a long
 * sealed blob and a notification before the answer: the input of the reporter and golden tests.
 */
import type { CombinedReport, RunReport } from '../../src/probe/types.js';

/** A long sealed-looking blob, to see it shortened in summaries. */
export const blob = `v1.${'eyJwIjp7InRvb2wiOiJ0cmFuc2Zlci'.repeat(8)}`;

/** The fixed report. */
export const report: RunReport = {
  schemaVersion: 1,
  tool: { name: 'stateguard', version: '9.9.9' },
  target: { kind: 'stdio', display: 'stdio:./server.js' },
  protocol: { era: 'modern', protocolVersion: '2026-07-28', discover: true, toolNames: ['a', 'b'] },
  startedAt: '2026-01-01T00:00:00.000Z',
  ms: 12,
  probes: [
    {
      id: 'state/tamper',
      title: 'Tampered requestState is rejected',
      severity: 'high',
      verdict: 'confirmed',
      reason: 'altered requestState was accepted',
      controls: {
        untouchedRetryAccepted: { held: true, expected: 'accepted', observed: 'accepted' },
      },
      observations: [{ label: 'echo', detail: 'the server repeats its input' }],
      evidence: [
        {
          kind: 'jsonrpc',
          label: 'changed requestState',
          identity: 'A',
          transport: 'stdio',
          sent: {
            jsonrpc: '2.0',
            id: 4,
            method: 'tools/call',
            params: { name: 'transfer', requestState: blob },
          },
          received: [
            { jsonrpc: '2.0', method: 'notifications/progress' },
            { jsonrpc: '2.0', id: 4, result: { resultType: 'complete' } },
          ],
          ms: 3,
        },
      ],
      ms: 40,
    },
    {
      id: 'state/replay-request',
      title: 't',
      severity: 'high',
      verdict: 'refuted',
      reason: 'held',
      controls: {},
      observations: [],
      evidence: [],
      ms: 1,
    },
    {
      id: 'handle/cross-principal',
      title: 't',
      severity: 'high',
      verdict: 'skipped',
      reason: 'no handle',
      controls: {},
      observations: [],
      evidence: [],
      ms: 1,
    },
    {
      id: 'state/replay-principal',
      title: 't',
      severity: 'high',
      verdict: 'errored',
      reason: 'control bOwnFlowAccepted did not hold',
      controls: { bOwnFlowAccepted: { held: false, expected: 'accepted', observed: 'timeout' } },
      observations: [],
      evidence: [{ kind: 'note', text: 'not sent: budget' }],
      ms: 1,
    },
  ],
};

/**
 * The same report after a baseline: `state/tamper` (confirmed) accepted, and an entry for
 * `state/replay-request` (refuted) stale. Written out rather than computed, so the reporter tests
 * do not depend on the baseline logic they render.
 */
export const baselinedReport: RunReport = {
  ...report,
  baseline: {
    file: 'stateguard.baseline',
    baselined: ['state/tamper'],
    stale: ['state/replay-request@stdio:./server.js'],
  },
  probes: report.probes.map((p) => (p.id === 'state/tamper' ? { ...p, baselined: true } : p)),
};

/**
 * A scan of two servers from one client configuration (`--config`): the sample report as the first
 * entry, and a second entry that could not be started (an unresolved placeholder), with its problem
 * and no probes.
 */
export const combinedReport: CombinedReport = {
  schemaVersion: 1,
  kind: 'combined',
  tool: { name: 'stateguard', version: '9.9.9' },
  configs: ['.mcp.json'],
  startedAt: '2026-01-01T00:00:00.000Z',
  ms: 30,
  servers: [
    {
      ...report,
      server: { name: 'workspaces', file: '.mcp.json', line: 3, format: 'claude-code' },
    },
    {
      ...report,
      target: { kind: 'http', display: 'http:https://mcp.example.com/${TOKEN}' },
      protocol: { era: 'unknown', discover: false, toolNames: [] },
      problem: 'not started: ${env:TOKEN} is not set',
      probes: [],
      server: { name: 'remote', file: '.mcp.json', line: 9, format: 'claude-code' },
    },
  ],
};
