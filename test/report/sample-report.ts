/**
 * One fixed RunReport with every verdict, a control that did not hold, an observation, a long
 * sealed blob and a notification before the answer: the input of the reporter and golden tests.
 */
import type { CallPlan } from '../../src/probe/model/tools.js';
import type { CombinedReport, ReportRule, RunReport } from '../../src/probe/model/report.js';
import { findProbe } from '../../src/probe/runner/registry.js';
import { ruleOf } from '../../src/probe/runner/scan-report.js';

/** The rules a scan puts in its report for these probes (scan-report.ts): the registry's. */
function rulesOf(ids: readonly string[]): ReportRule[] {
  return ids.flatMap((id) => {
    const probe = findProbe(id);
    return probe === undefined ? [] : [ruleOf(probe)];
  });
}

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
  undecided: 2,
  probes: [
    {
      id: 'state/tamper',
      title: 'Tampered requestState is rejected',
      flaw: 'Tampered requestState is accepted',
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
      flaw: 'f',
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
      flaw: 'f',
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
      flaw: 'f',
      severity: 'high',
      verdict: 'errored',
      reason: 'control bOwnFlowAccepted did not hold',
      controls: { bOwnFlowAccepted: { held: false, expected: 'accepted', observed: 'timeout' } },
      observations: [],
      evidence: [{ kind: 'note', text: 'not sent: budget' }],
      ms: 1,
    },
  ],
  rules: rulesOf([
    'state/tamper',
    'state/replay-request',
    'handle/cross-principal',
    'state/replay-principal',
  ]),
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
    unmatched: [],
  },
  probes: report.probes.map((p) => (p.id === 'state/tamper' ? { ...p, baselined: true } : p)),
};

/**
 * The report with two more confirmed findings, of medium and low severity, so every severity of
 * the registry reaches a golden file as its SARIF level and security-severity (`report` itself
 * stays as it is: every other golden is built from it).
 */
export const severitiesReport: RunReport = {
  ...report,
  probes: [
    ...report.probes,
    {
      id: 'transport/origin',
      title: 'A request with a foreign Origin is refused with 403',
      flaw: 'A request with a foreign Origin is served (DNS rebinding)',
      severity: 'medium',
      verdict: 'confirmed',
      reason: 'a request with Origin https://evil.example was served',
      controls: { ownOriginAccepted: { held: true, expected: 'accepted', observed: 'accepted' } },
      observations: [],
      evidence: [
        { kind: 'observation', label: 'foreign Origin', expected: 'HTTP 403', actual: 'HTTP 200' },
      ],
      ms: 2,
    },
    {
      id: 'state/error-oracle',
      title: 'Every refused requestState gets the same answer',
      flaw: 'Refused requestStates get telling answers (an error oracle)',
      severity: 'low',
      verdict: 'confirmed',
      reason: 'a truncated and a tampered state drew different errors',
      controls: {},
      observations: [],
      evidence: [{ kind: 'note', text: 'truncated: -32602 malformed; tampered: -32602 auth' }],
      ms: 2,
    },
  ],
  rules: rulesOf([
    'state/tamper',
    'state/replay-request',
    'handle/cross-principal',
    'state/replay-principal',
    'transport/origin',
    'state/error-oracle',
  ]),
};

/**
 * A call plan of every class, kind and grant: four entries called by default (two read, two
 * create, one of them a prompt), six left alone (a write, three outside, one a resource template,
 * a destroy and an unknown without evidence).
 */
export const plan: CallPlan = {
  allowTools: [],
  includeDestructive: false,
  entries: [
    {
      kind: 'tool',
      name: 'list_orders',
      class: 'read',
      evidence: ['readOnlyHint: true', 'the name starts with a reading verb ("list")'],
      calledBy: 'default',
    },
    {
      kind: 'tool',
      name: 'create_order',
      class: 'create',
      evidence: ['the name starts with "create"'],
      calledBy: 'default',
    },
    {
      kind: 'prompt',
      name: 'summarise',
      class: 'read',
      evidence: ['a prompt only returns messages'],
      calledBy: 'default',
    },
    {
      kind: 'tool',
      name: 'upload_document',
      class: 'create',
      evidence: ['"upload" returns a new object to the caller'],
      calledBy: 'default',
    },
    {
      kind: 'tool',
      name: 'update_profile',
      class: 'write',
      evidence: ['the name starts with "update"', 'readOnlyHint: false'],
      reach: '--allow-tool update_profile',
    },
    {
      kind: 'tool',
      name: 'send_invoice',
      class: 'outside',
      evidence: ['"send" in the name'],
      reach: '--allow-tool send_invoice',
    },
    {
      kind: 'tool',
      name: 'fetch_page',
      class: 'outside',
      evidence: ['parameter url: a URL the server fetches'],
      reach: '--allow-tool fetch_page',
    },
    {
      kind: 'resource-template',
      name: 'mail://{to}/send',
      class: 'outside',
      evidence: ['"send" in the URI template'],
      reach: '--include-destructive',
    },
    {
      kind: 'tool',
      name: 'delete_order',
      class: 'destroy',
      evidence: ['destructiveHint: true', '"delete" in the name'],
      reach: '--allow-tool delete_order',
    },
    {
      kind: 'tool',
      name: 'frobnicate',
      class: 'unknown',
      evidence: [],
      reach: '--allow-tool frobnicate',
    },
  ],
};

/**
 * The sample report with its call plan, and `uncalled` as the scan derives it from the plan (the
 * tools left alone, the deciding evidence as why, the reach as the flag).
 */
export const plannedReport: RunReport = {
  ...report,
  protocol: {
    ...report.protocol,
    toolNames: plan.entries.filter((e) => e.kind === 'tool').map((e) => e.name),
    promptNames: ['summarise'],
    resourceTemplates: ['mail://{to}/send'],
  },
  plan,
  uncalled: plan.entries
    .filter((e) => e.kind === 'tool' && e.reach !== undefined)
    .map((e) => ({ tool: e.name, why: e.evidence[0] ?? 'unknown', flag: e.reach })),
};

/**
 * A scan of three servers from two configuration files: one inside the repository (`.mcp.json`,
 * two entries), one outside it (a user's home directory), with every severity confirmed on the
 * first server and a server that could not be started.
 */
export const combinedReport: CombinedReport = {
  schemaVersion: 1,
  kind: 'combined',
  tool: report.tool,
  configs: ['.mcp.json', '/home/user/.cursor/mcp.json'],
  startedAt: report.startedAt,
  ms: 30,
  servers: [
    {
      ...severitiesReport,
      server: { name: 'payments', file: '.mcp.json', line: 3, format: 'claude-code' },
    },
    {
      ...report,
      target: { kind: 'http', display: 'http://127.0.0.1:8080/mcp' },
      probes: report.probes.filter((p) => p.verdict !== 'errored'),
      server: { name: 'search', file: '.mcp.json', line: 9, format: 'claude-code' },
      // Its plan with one tool called on the user's word (`--allow-tool send_invoice`).
      plan: {
        ...plan,
        allowTools: ['send_invoice'],
        entries: plan.entries.map((e) =>
          e.name === 'send_invoice' ? { ...e, calledBy: '--allow-tool', reach: undefined } : e,
        ),
      },
    },
    {
      ...report,
      target: { kind: 'stdio', display: 'stdio:${env:TOOL_HOME}/bin/tool' },
      problem: 'unresolved placeholder ${env:TOOL_HOME} in command',
      probes: [],
      server: {
        name: 'tool',
        file: '/home/user/.cursor/mcp.json',
        line: 4,
        format: 'cursor',
      },
    },
  ],
};
