/**
 * The cert-x-gen reporter on fixed reports: the status rule at its edges, findings for confirmed
 * probes only, bounded evidence, one-line detail, hostile text kept inert, and the metadata kept
 * equal to the header of the template file the engine reads.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PROBES } from '../../src/probe/runner/registry.js';
import type { ProbeResult, RunReport } from '../../src/probe/model/report.js';
import {
  CERT_X_GEN_TEMPLATE,
  certXGen,
  certXGenErrored,
  cut,
  PROBE_CWES,
  RESPONSE_MAX,
} from '../../src/report/cert-x-gen.js';
import { parseCertXGen, TEMPLATE_FILE } from '../helpers/cert-x-gen.js';
import { report } from './sample-report.js';

const render = (r: RunReport): ReturnType<typeof parseCertXGen> =>
  parseCertXGen(certXGen.render(r, { color: false, evidence: 'summary' }));

const probe = (id: string, verdict: ProbeResult['verdict'], reason = 'r'): ProbeResult => ({
  id,
  title: 't',
  flaw: 'The flaw',
  severity: 'medium',
  verdict,
  reason,
  controls: {},
  observations: [],
  evidence: [],
  ms: 1,
});

const withProbes = (...probes: ProbeResult[]): RunReport => ({ ...report, probes });

describe('the cert-x-gen status', () => {
  it('is confirmed with one finding per confirmed probe', () => {
    const doc = render(report);
    expect(doc.metadata.status).toBe('confirmed');
    expect(doc.findings.map((f) => f.evidence.data.probe)).toEqual(['state/tamper']);
    expect(doc.findings[0]).toMatchObject({
      template_id: CERT_X_GEN_TEMPLATE.id,
      severity: 'high',
      cwe_ids: PROBE_CWES['state/tamper'],
      cwe: PROBE_CWES['state/tamper']?.[0],
      target: 'stdio:./server.js',
      timestamp: '2026-01-01T00:00:00.012Z',
    });
    expect(doc.metadata.detail).toMatch(
      /confirmed: state\/tamper \| refuted: state\/replay-request/,
    );
  });

  it("describes a finding by its reason and the first paragraph of the report's own rule", () => {
    const tamper = report.rules?.find((r) => r.id === 'state/tamper');
    expect(tamper).toBeDefined();
    const carried: RunReport = {
      ...report,
      rules: [{ ...tamper!, rationale: 'Carried   in the\nreport.\n\nNot this paragraph.' }],
    };
    expect(render(carried).findings[0]?.description).toBe(
      'altered requestState was accepted\n\nCarried in the report.',
    );
    const { rules: _rules, ...bare } = report;
    expect(render(bare).findings[0]?.description).toBe('altered requestState was accepted');
  });

  it("gives each finding its probe's first CWE as the one `cwe` the engine reads, none when it has none", () => {
    const doc = render(
      withProbes(
        probe('transport/origin', 'confirmed'),
        probe('state/cross-instance', 'confirmed'),
      ),
    );
    const [origin, cross] = doc.findings;
    expect(origin).toMatchObject({ cwe_ids: ['CWE-346'], cwe: 'CWE-346' });
    expect(cross?.cwe_ids).toEqual([]);
    expect(cross).not.toHaveProperty('cwe');
  });

  it('is refuted when nothing is confirmed and one probe refuted, whatever errored', () => {
    const doc = render(
      withProbes(probe('a/x', 'errored'), probe('a/y', 'refuted'), probe('a/z', 'skipped')),
    );
    expect(doc.metadata.status).toBe('refuted');
    expect(doc.findings).toEqual([]);
  });

  it('is skipped when every probe skipped or errored, and names why', () => {
    const doc = render(
      withProbes(
        probe('a/x', 'skipped', 'no input_required'),
        probe('a/y', 'errored', 'a timeout'),
      ),
    );
    expect(doc.metadata.status).toBe('skipped');
    expect(doc.metadata.detail).toContain('a/x: no input_required');
    expect(doc.metadata.detail).toContain('a/y: a timeout');
  });

  it('is errored, without findings, when the target could not be run or reached', () => {
    const problem = render({
      ...withProbes(probe('a/x', 'errored')),
      problem: 'spawn ./server.js ENOENT',
    });
    expect(problem.metadata.status).toBe('errored');
    expect(problem.metadata.detail).toContain('spawn ./server.js ENOENT');
    const mute = render({
      ...withProbes(probe('a/x', 'errored')),
      protocol: { era: 'unknown', discover: false, toolNames: [] },
    });
    expect(mute.metadata.status).toBe('errored');
    expect(mute.findings).toEqual([]);
  });

  it('gives an errored document for a run that never scanned', () => {
    const doc = parseCertXGen(certXGenErrored('stateguard: CERT_X_GEN_TARGET_PORT\nneeds a port'));
    expect(doc).toMatchObject({
      findings: [],
      metadata: { status: 'errored', detail: 'stateguard: CERT_X_GEN_TARGET_PORT needs a port' },
    });
  });
});

describe('what the target said, in the document', () => {
  // A confirmed probe whose answer is long, multi-line, with bidi overrides and astral characters.
  const hostile = '\u202e<script>alert(1)</script>\n'.repeat(50) + '😀'.repeat(2000);
  const confirmed: ProbeResult = {
    ...probe('state/tamper', 'confirmed', 'accepted:\n\u202eline two'),
    evidence: [
      {
        kind: 'jsonrpc',
        label: 'changed state',
        identity: 'A',
        transport: 'stdio',
        sent: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x' } },
        received: [
          { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: hostile }] } },
        ],
        ms: 1,
      },
    ],
  };
  const text = certXGen.render(withProbes(confirmed), { color: false, evidence: 'full' });
  const doc = parseCertXGen(text);

  it('cuts the response to a bounded length, never through a surrogate pair', () => {
    const { response } = doc.findings[0]?.evidence ?? { response: '' };
    expect(response.length).toBeLessThanOrEqual(RESPONSE_MAX);
    expect(response).toMatch(/…\[cut from \d+\]$/);
    expect(response).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/);
    // Room for 'ab' and half of the emoji: the half is dropped, not printed alone.
    const long = `ab😀${'c'.repeat(20)}`;
    expect(cut(long, 3 + '…[cut from 24]'.length)).toBe('ab…[cut from 24]');
    expect(cut(long, 24)).toBe(long);
  });

  it('keeps the detail on one line and prints bidi characters escaped', () => {
    expect(doc.metadata.detail).not.toMatch(/\n/);
    expect(text).not.toContain('\u202e');
    expect(text).toContain('\\u202e');
    // The value itself survives: JSON readers decode the escape back.
    expect(doc.findings[0]?.description).toContain('\u202eline two');
  });
});

describe('the template the engine runs', () => {
  it('has a CWE decision for every registered probe', () => {
    expect(Object.keys(PROBE_CWES).sort()).toEqual(PROBES.map((p) => p.id).sort());
  });

  it("declares in its header what the document's metadata says", () => {
    // The engine reads `@field: value` in the first 50 lines, lists comma-separated and lowercased.
    const header = readFileSync(TEMPLATE_FILE, 'utf8').split('\n').slice(0, 50).join('\n');
    const field = (name: string): string | undefined =>
      new RegExp(`^\\s*(?:#|//!?|\\*)?\\s*@${name}\\s*:\\s*(.+?)\\s*$`, 'm').exec(header)?.[1];
    const list = (name: string): string[] =>
      (field(name) ?? '')
        .split(',')
        .map((s) => s.trim().toLowerCase())
        .filter(Boolean);
    expect(field('id')).toBe(CERT_X_GEN_TEMPLATE.id);
    expect(field('name')).toBe(CERT_X_GEN_TEMPLATE.name);
    expect(field('author')).toBe(CERT_X_GEN_TEMPLATE.author);
    expect(field('severity')).toBe(CERT_X_GEN_TEMPLATE.severity);
    expect(field('description')).toBe(CERT_X_GEN_TEMPLATE.description);
    expect(field('confidence')).toBe(String(CERT_X_GEN_TEMPLATE.confidence));
    expect(list('tags')).toEqual([...CERT_X_GEN_TEMPLATE.tags]);
    expect(list('cwe')).toEqual(CERT_X_GEN_TEMPLATE.cwe.map((c) => c.toLowerCase()));
    expect(list('references')).toEqual(
      [...CERT_X_GEN_TEMPLATE.references].map((r) => r.toLowerCase()),
    );
    expect(list('target_kinds').sort()).toEqual(['cli', 'http']);
  });
});
