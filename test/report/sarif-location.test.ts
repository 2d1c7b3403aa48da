/**
 * Where SARIF results point: the configuration entry of a server, `--sarif-location`, or a stable
 * pseudo-path; always a repository-relative path with no scheme, no `..` and nothing the target
 * or the user wrote that could escape it.
 */
import { describe, expect, it } from 'vitest';
import type { RunReport } from '../../src/probe/model/report.js';
import {
  parseSarifLocation,
  placeOf,
  pseudoPath,
  repoRelative,
  sourceRootOf,
} from '../../src/report/sarif-location.js';
import { toSarif, toSarifCombined } from '../../src/report/sarif.js';
import type { RenderOptions } from '../../src/report/types.js';
import { combinedReport, report } from './sample-report.js';
import { uriProblem } from './sarif-github.js';

const OPTIONS: RenderOptions = { color: false, evidence: 'summary' };
const ROOTS = { root: '/work/repo', cwd: '/work/repo/services' };
const fromConfig = (file: string, line = 7): RunReport => ({
  ...report,
  server: { name: 'payments', file, line, format: 'vscode' },
});
const firstLocation = (r: RunReport, options: RenderOptions = OPTIONS) =>
  toSarif(r, options).runs[0]?.results?.[0]?.locations?.[0];

describe('the location of a SARIF result', () => {
  it('is the configuration file, relative to the repository root, at the line of the entry', () => {
    const location = firstLocation(fromConfig('.vscode/mcp.json', 12), {
      ...OPTIONS,
      sourceRoot: ROOTS,
    });
    expect(location?.physicalLocation).toEqual({
      artifactLocation: { uri: 'services/.vscode/mcp.json', uriBaseId: '%SRCROOT%' },
      region: { startLine: 12 },
    });
    expect(location?.logicalLocations).toEqual([{ name: 'stdio:./server.js', kind: 'resource' }]);
    expect(location?.message?.text).toBe('MCP server "payments" (vscode)');
  });

  it('takes GITHUB_WORKSPACE as the root when it is set, and the working directory otherwise', () => {
    expect(sourceRootOf({ GITHUB_WORKSPACE: '/ws' }, '/ws/sub')).toEqual({
      root: '/ws',
      cwd: '/ws/sub',
    });
    expect(sourceRootOf({ GITHUB_WORKSPACE: '' }, '/x')).toEqual({ root: '/x', cwd: '/x' });
    expect(repoRelative('/ws/a b/.mcp.json', { root: '/ws', cwd: '/elsewhere' })).toBe(
      'a%20b/.mcp.json',
    );
  });

  it('falls back to the pseudo-path of the server name for a file outside the repository', () => {
    for (const file of ['/home/user/.cursor/mcp.json', '../../outside/.mcp.json']) {
      const uri = firstLocation(fromConfig(file), { ...OPTIONS, sourceRoot: ROOTS })
        ?.physicalLocation?.artifactLocation?.uri;
      expect(uri).toBe(pseudoPath('payments'));
      expect(uri).toMatch(/^\.stateguard\/payments-[0-9a-f]{8}$/);
    }
  });

  it('is the --sarif-location file and line for a single target, relative to the root', () => {
    const given = parseSarifLocation('src/server.ts:40', ROOTS);
    expect(given).toEqual({ uri: 'services/src/server.ts', line: 40 });
    const location = firstLocation(report, {
      ...OPTIONS,
      sarifLocation: given as { uri: string; line: number },
    });
    expect(location?.physicalLocation?.artifactLocation?.uri).toBe('services/src/server.ts');
    expect(location?.physicalLocation?.region?.startLine).toBe(40);
    expect(parseSarifLocation('/work/repo/mcp.ts', ROOTS)).toEqual({ uri: 'mcp.ts', line: 1 });
    expect(parseSarifLocation('../../etc/passwd', ROOTS)).toMatch(/not inside the repository/);
    expect(parseSarifLocation('x.ts:0', ROOTS)).toMatch(/line must be 1 or more/);
    expect(parseSarifLocation('', ROOTS)).toMatch(/needs a file path/);
  });

  it('is a stable pseudo-path otherwise, safe whatever the target display holds', () => {
    const hostile = [
      'stdio:../../../etc/passwd',
      'http://evil.example/mcp?x=<script>alert(1)</script>',
      'stdio:node \u202eevil\u0000\u001b[2J ..\\..\\win',
      '....',
      '',
    ];
    for (const display of hostile) {
      const uri = pseudoPath(display);
      expect(uriProblem(uri), display).toBeUndefined();
      expect(uri.split('/')).toHaveLength(2);
      expect(uri).toMatch(/^\.stateguard\/[A-Za-z0-9._-]+$/);
      expect(uri).not.toContain('..');
      expect(pseudoPath(display)).toBe(uri);
    }
    expect(pseudoPath('stdio:./server.js')).toMatch(/^\.stateguard\/stdio-server\.js-[0-9a-f]{8}$/);
    // Two displays that sanitise alike stay apart.
    expect(pseudoPath('http://a/b')).not.toBe(pseudoPath('http://a-b'));
    expect(placeOf(report, undefined, undefined).uri).toBe(pseudoPath('stdio:./server.js'));
  });
});

describe('the fingerprints of a result', () => {
  const fingerprints = (r: RunReport) =>
    toSarif(r, OPTIONS).runs[0]?.results?.[0]?.partialFingerprints ?? {};

  it('keep the probe-and-target fingerprint of a single target, and give GitHub its own', () => {
    const f = fingerprints(report);
    expect(f['stateguardProbeTarget/v1']).toBe('33a9d5ce08f0c4d00b8daa0786c44702');
    expect(f.primaryLocationLineHash).toBe('33a9d5ce08f0c4d0:1');
  });

  it('follow a configured server by file and name, not by its command line', () => {
    const a = fingerprints(fromConfig('.mcp.json'));
    const moved = fingerprints({ ...fromConfig('.mcp.json', 30), target: report.target });
    const renamedCommand = fingerprints({
      ...fromConfig('.mcp.json'),
      target: { kind: 'stdio', display: 'stdio:node other.js' },
    });
    const otherServer = fingerprints({
      ...report,
      server: { name: 'search', file: '.mcp.json', line: 7, format: 'vscode' },
    });
    expect(moved).toEqual(a);
    expect(renamedCommand).toEqual(a);
    expect(otherServer.primaryLocationLineHash).not.toBe(a.primaryLocationLineHash);
  });
});

describe('the SARIF log of a multi-server scan', () => {
  const log = toSarifCombined(combinedReport, {
    ...OPTIONS,
    sarifLocation: { uri: 'ignored.ts', line: 3 },
  });
  const run = log.runs[0]!;

  it('is one run, as GitHub accepts one run per tool and category', () => {
    expect(log.runs).toHaveLength(1);
    expect(run.invocations).toHaveLength(combinedReport.servers.length);
    const ids = run.tool.driver.rules?.map((r) => r.id) ?? [];
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('points each server’s results at its own entry, with fingerprints of its own', () => {
    const places = (run.results ?? []).map((r) => [
      r.ruleId,
      r.locations?.[0]?.physicalLocation?.artifactLocation?.uri,
      r.locations?.[0]?.physicalLocation?.region?.startLine,
    ]);
    expect(places).toEqual([
      ['state/tamper', '.mcp.json', 3],
      ['state/replay-principal', '.mcp.json', 3],
      ['transport/origin', '.mcp.json', 3],
      ['state/error-oracle', '.mcp.json', 3],
      ['state/tamper', '.mcp.json', 9],
    ]);
    const tampers = (run.results ?? []).filter((r) => r.ruleId === 'state/tamper');
    expect(tampers[0]?.partialFingerprints).not.toEqual(tampers[1]?.partialFingerprints);
  });

  it('names the server that could not be started in its invocation', () => {
    const third = run.invocations?.[2];
    expect(third?.executionSuccessful).toBe(false);
    expect(third?.properties).toEqual({ server: 'tool' });
    expect(third?.toolExecutionNotifications?.[0]?.message.text).toMatch(/unresolved placeholder/);
  });
});
