import { describe, expect, it } from 'vitest';
import type { RunReport } from '../../src/probe/types.js';
import { REPORTERS, isReportFormat } from '../../src/report/index.js';
import { shortBlob } from '../../src/report/evidence-lines.js';
import { summaryLine } from '../../src/report/text.js';

const blob = `v1.${'eyJwIjp7InRvb2wiOiJ0cmFuc2Zlci'.repeat(8)}`;

const report: RunReport = {
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

describe('the text reporter', () => {
  const plain = REPORTERS.text.render(report, { color: false, evidence: 'summary' });

  it('ends with the summary line counting every verdict and naming the target', () => {
    expect(summaryLine(report)).toBe(
      '1 confirmed · 1 refuted · 1 skipped · 1 errored (target: stdio:./server.js)',
    );
    expect(plain.trimEnd().split('\n').at(-1)).toBe(summaryLine(report));
  });

  it('gives each probe one line with verdict, id and reason, controls and observations beneath', () => {
    expect(plain).toContain('✗ CONFIRMED state/tamper  altered requestState was accepted');
    expect(plain).toContain(
      '! ERRORED   state/replay-principal  control bOwnFlowAccepted did not hold',
    );
    expect(plain).toContain(
      'control ✓ untouchedRetryAccepted: expected accepted; observed accepted',
    );
    expect(plain).toContain('control ✗ bOwnFlowAccepted: expected accepted; observed timeout');
    expect(plain).toContain('observation echo: the server repeats its input');
  });

  it('summarises an exchange in one line with a long blob shortened to prefix, length and hash', () => {
    expect(plain).toContain(
      `[A] tools/call transfer requestState=${shortBlob(blob)} · changed requestState → result complete (+1 other message) (3 ms)`,
    );
    expect(plain).not.toContain(blob);
    expect(shortBlob(blob)).toMatch(/^v1\.eyJwIjp7I…\(243 chars, sha256:[0-9a-f]{8}\)$/);
  });

  it('shows the whole evidence in full mode and none of it in none mode', () => {
    expect(REPORTERS.text.render(report, { color: false, evidence: 'full' })).toContain(blob);
    expect(REPORTERS.text.render(report, { color: false, evidence: 'none' })).not.toContain(
      'evidence (',
    );
  });

  it('colours only when asked', () => {
    expect(plain).not.toContain('\u001b[');
    expect(REPORTERS.text.render(report, { color: true, evidence: 'summary' })).toContain(
      '\u001b[1;31m✗ CONFIRMED',
    );
  });
});

describe('the JSON reporter', () => {
  it('prints exactly the RunReport', () => {
    expect(JSON.parse(REPORTERS.json.render(report, { color: false, evidence: 'none' }))).toEqual(
      report,
    );
  });
});

describe('the reporter registry', () => {
  it('knows text and json and nothing inherited from Object', () => {
    expect(isReportFormat('text')).toBe(true);
    expect(isReportFormat('json')).toBe(true);
    expect(isReportFormat('toString')).toBe(false);
  });
});
