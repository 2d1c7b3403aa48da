/**
 * The JUnit reporter: one testcase per probe, verdicts mapped to failure / error / skipped / pass,
 * totals that add up, and XML that stays well-formed whatever a hostile server put in the evidence.
 */
import { describe, expect, it } from 'vitest';
import type { RunReport } from '../../src/probe/model/report.js';
import { junit, xmlAttr, xmlText } from '../../src/report/junit.js';
import { report } from './sample-report.js';

const render = (r: RunReport) => junit.render(r, { color: false, evidence: 'summary' });

describe('the JUnit reporter', () => {
  it('writes one testcase per probe, with totals that count each verdict', () => {
    const xml = render(report);
    expect(xml.match(/<testcase /g)).toHaveLength(report.probes.length);
    expect(xml).toContain(
      '<testsuites name="stateguard" tests="4" failures="1" errors="1" skipped="1"',
    );
  });

  it('maps confirmed to failure, errored to error, skipped to skipped, and lets refuted pass', () => {
    const xml = render(report);
    const caseOf = (id: string): string =>
      new RegExp(`<testcase [^>]*name="${id}"[^>]*>([\\s\\S]*?)</testcase>`).exec(xml)?.[1] ?? '';
    expect(caseOf('state/tamper')).toMatch(
      /^\s*<failure message="altered requestState was accepted" type="confirmed">/,
    );
    expect(caseOf('state/replay-principal')).toMatch(
      /<error message="control bOwnFlowAccepted did not hold" type="errored">/,
    );
    expect(caseOf('state/replay-principal')).toContain('control ✗ bOwnFlowAccepted');
    expect(caseOf('handle/cross-principal')).toMatch(/^\s*<skipped message="no handle"\/>\s*$/);
    expect(caseOf('state/replay-request')).toMatch(
      /^\s*<system-out>refuted: held<\/system-out>\s*$/,
    );
  });

  it('escapes markup and drops characters XML cannot carry, wherever a server put them', () => {
    expect(xmlText('a<b>&c\u0000d\u001be')).toBe('a&lt;b&gt;&amp;c\uFFFDd\uFFFDe');
    expect(xmlAttr('say "hi"\nnow')).toBe('say &quot;hi&quot;&#10;now');
    const hostile: RunReport = {
      ...report,
      target: { kind: 'http', display: 'http://127.0.0.1/mcp?a=1&b="2"' },
      probes: [{ ...report.probes[0]!, reason: '</failure><x>\u0007' }],
    };
    const xml = render(hostile);
    expect(xml).toContain('message="&lt;/failure&gt;&lt;x&gt;\uFFFD"');
    expect(xml).toContain('value="http://127.0.0.1/mcp?a=1&amp;b=&quot;2&quot;"');
    const controls = [...xml].filter((c) => c.charCodeAt(0) < 0x20 && !'\t\n\r'.includes(c));
    expect(controls).toEqual([]);
  });
});
