/**
 * A fixed CombinedReport for the combined goldens: the sample report with its call plan as a
 * configured server, the
 * baselined one as another, one server that could not be started and one SSE-only entry.
 */
import type { CombinedReport, RunReport } from '../../src/probe/model/report.js';
import { baselinedReport, plannedReport, report } from './sample-report.js';

const unstarted = (name: string, line: number, display: string, problem: string): RunReport => ({
  schemaVersion: 1,
  tool: report.tool,
  server: { name, file: '.mcp.json', line, format: 'claude-code' },
  target: { kind: 'http', display },
  protocol: { era: 'unknown', discover: false, toolNames: [] },
  startedAt: report.startedAt,
  ms: 0,
  problem,
  undecided: 0,
  probes: [],
});

export const combined: CombinedReport = {
  schemaVersion: 1,
  kind: 'combined',
  tool: report.tool,
  configs: ['.mcp.json', '.vscode/mcp.json'],
  startedAt: report.startedAt,
  ms: 2345,
  servers: [
    {
      schemaVersion: 1,
      tool: report.tool,
      server: { name: 'payments', file: '.mcp.json', line: 3, format: 'claude-code' },
      ...Object.fromEntries(
        Object.entries(plannedReport).filter(([k]) => k !== 'schemaVersion' && k !== 'tool'),
      ),
    } as RunReport,
    {
      ...baselinedReport,
      server: { name: 'notes', file: '.vscode/mcp.json', line: 5, format: 'vscode' },
    },
    unstarted(
      'crm',
      9,
      'https://crm.example/mcp',
      "unresolved placeholder ${CRM_TOKEN}: not started (set CRM_TOKEN in the scanner's environment)",
    ),
    unstarted(
      'legacy-search',
      14,
      'https://search.example/sse',
      'not scanned: an SSE-only entry ("type": "sse", the HTTP+SSE transport of protocol 2024-11-05, deprecated since 2025-03-26); the scanner speaks Streamable HTTP. If the server also serves Streamable HTTP, declare that endpoint with "type": "http"',
    ),
  ],
};
