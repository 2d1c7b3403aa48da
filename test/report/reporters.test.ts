import { describe, expect, it } from 'vitest';
import {
  COMBINED_FORMATS,
  isReportFormat,
  REPORT_FORMATS,
  REPORTERS,
  type Reporter,
} from '../../src/report/index.js';
import { shortBlob } from '../../src/report/evidence-lines.js';
import { summaryLine } from '../../src/report/text.js';
import { blob, report } from './sample-report.js';
import type { RunReport } from '../../src/probe/model/report.js';

describe('the text reporter', () => {
  const plain = REPORTERS.text.render(report, { color: false, evidence: 'summary' });

  it('ends with the summary line counting every verdict and naming the target', () => {
    expect(summaryLine(report)).toBe(
      '1 confirmed · 1 refuted · 1 skipped · 1 errored (target: stdio:./server.js)',
    );
    expect(plain.trimEnd().split('\n').at(-1)).toBe(summaryLine(report));
  });

  it('gives each probe one line with verdict, id and reason, controls and observations beneath', () => {
    // A confirmed result is titled by the flaw it found; the property it asked about is not shown.
    expect(plain).toContain(
      '✗ CONFIRMED state/tamper  Tampered requestState is accepted: altered requestState was accepted',
    );
    expect(plain).not.toContain('Tampered requestState is rejected');
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

describe('the requests line', () => {
  // The sample report's four probes sent 7, 0, 5 and 3 requests of their own.
  const counted: RunReport = {
    ...report,
    requests: { total: 33, opening: 5, survey: 9, shared: 4, probes: 15 },
    probes: report.probes.map((p, i) => ({ ...p, requests: [7, 0, 5, 3][i] ?? 0 })),
  };
  const line =
    'requests: 33 (opening 5, discovery 9, shared setup 4, probes 15: state/tamper 7, handle/cross-principal 5, state/replay-principal 3)';

  it('says what the scan sent: the shared setup once, each probe what it added on top', () => {
    const text = REPORTERS.text.render(counted, { color: false, evidence: 'none' });
    expect(text.split('\n')).toContain(line);
    const md = REPORTERS.markdown.render(counted, { color: false, evidence: 'none' });
    expect(md).toContain('shared setup 4, probes 15: state/tamper 7');
  });

  it('is absent from a report that does not count its requests', () => {
    const text = REPORTERS.text.render(report, { color: false, evidence: 'none' });
    expect(text).not.toContain('requests: ');
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
  it('knows text, json, sarif and junit and nothing inherited from Object', () => {
    for (const id of ['text', 'json', 'sarif', 'junit']) {
      expect(isReportFormat(id)).toBe(true);
      expect(REPORTERS[id as keyof typeof REPORTERS].id).toBe(id);
    }
    expect(isReportFormat('toString')).toBe(false);
  });

  it('lists in formats.ts (which parsing loads instead of the reporters) the ids and combined formats the reporters have', () => {
    expect(REPORT_FORMATS).toEqual(Object.keys(REPORTERS));
    expect(COMBINED_FORMATS).toEqual(
      REPORT_FORMATS.filter((id) => (REPORTERS[id] as Reporter).renderCombined !== undefined),
    );
  });
});

describe('a target problem', () => {
  const problem = 'the target did not answer: server/discover (transport: connection refused)';
  const evidence = report.probes[3]?.evidence ?? [];
  const unreachable: RunReport = {
    ...report,
    problem,
    undecided: report.probes.length,
    probes: report.probes.map((p) => ({ ...p, verdict: 'errored', reason: problem, evidence })),
  };
  const count = (text: string, what: string): number => text.split(what).length - 1;

  it('is said once in the text, Markdown and HTML reports, each probe pointing at it', () => {
    expect(unreachable.probes.length).toBeGreaterThan(2);
    const plain = REPORTERS.text.render(unreachable, { color: false, evidence: 'summary' });
    const md = REPORTERS.markdown.render(unreachable, { color: false, evidence: 'summary' });
    const page = REPORTERS.html.render(unreachable, { color: false, evidence: 'summary' });
    for (const out of [plain, md, page]) {
      expect(count(out, 'connection refused')).toBe(1);
      expect(count(out, 'not decided: the target problem above')).toBeGreaterThanOrEqual(
        unreachable.probes.length,
      );
    }
    // Its exchanges are shown once, under the problem.
    expect(plain.indexOf('evidence (')).toBeLessThan(plain.indexOf('ERRORED'));
    expect(count(plain, 'evidence (')).toBe(1);
  });
});
