import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { toSarif } from '../../src/report/sarif.js';
import { CaptureWriter, parseCapture, type CaptureLine } from '../../src/watch/capture.js';
import { judge } from '../../src/watch/judge.js';
import { captureReport } from '../../src/watch/report.js';
import { stateShape } from '../../src/watch/state-shape.js';
import { schemaProblems } from '../report/sarif-validators.js';

const META = 'io.modelcontextprotocol/principal';

/** Records traffic as the proxy does, into memory, and reads it back as `check` does. */
function recorder() {
  const out: string[] = [];
  const w = new CaptureWriter('stdio', 'node server.js', (l) => out.push(l));
  let id = 0;
  const principal = (who: string) => w.digester.digest('principal', `meta:${who}`);
  return {
    req(who: string, method: string, params: Record<string, unknown>): number {
      const msg = {
        jsonrpc: '2.0',
        id: ++id,
        method,
        params: { ...params, _meta: { [META]: who } },
      };
      return w.record(JSON.stringify(msg), {
        dir: 'c2s',
        principal: principal(who),
        principalMeta: { key: META, value: who },
      });
    },
    res(re: number, who: string, body: { result?: unknown; error?: unknown }): number {
      return w.record(JSON.stringify({ jsonrpc: '2.0', id: 0, ...body }), {
        dir: 's2c',
        principal: principal(who),
        re,
      });
    },
    text: () => out.join(''),
    lines(): CaptureLine[] {
      const parsed = parseCapture(out.join(''));
      if ('problem' in parsed) throw new Error(parsed.problem);
      return parsed.lines;
    },
  };
}

const plain = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
const sealed = () => `v1.${randomBytes(48).toString('base64url')}`;
const inputRequired = (requestState: string) => ({
  result: {
    resultType: 'input_required',
    inputRequests: { q: { method: 'elicitation/create' } },
    requestState,
  },
});
const done = { result: { resultType: 'complete', content: [{ type: 'text', text: 'ok' }] } };
const refused = { error: { code: -32602, message: 'Invalid or expired requestState' } };
const call = (extra: Record<string, unknown> = {}) => ({
  name: 'create_report',
  arguments: {},
  ...extra,
});

const ids = (lines: CaptureLine[]) => judge(lines).findings.map((f) => f.id);

describe('stateShape', () => {
  it('reads JSON, base64url JSON and JWT JSON, and sees tags', () => {
    expect(stateShape('{"step":"1","principal":"alice"}')).toEqual({
      reading: 'json',
      tagged: false,
      identity: ['principal'],
    });
    expect(stateShape(plain({ step: 1, owner: 'a' }))).toMatchObject({
      reading: 'base64-json',
      tagged: false,
      identity: ['owner'],
    });
    const mac = randomBytes(32).toString('base64url');
    expect(stateShape(`${plain({ step: 1 })}.${mac}`)).toMatchObject({
      reading: 'base64-json',
      tagged: true,
    });
    const none = `${plain({ alg: 'none' })}.${plain({ sub: 'u1' })}.`;
    expect(stateShape(none)).toMatchObject({
      reading: 'jwt-json',
      tagged: false,
      identity: ['sub'],
    });
    expect(stateShape(sealed())).toEqual({ reading: 'opaque', tagged: false, identity: [] });
  });
});

describe('judge', () => {
  it('finds a readable, identity-bearing state and points at the line that issued it', () => {
    const r = recorder();
    const q = r.req('alice', 'tools/call', call());
    const a = r.res(q, 'alice', inputRequired(plain({ step: 'dataset', principal: 'alice' })));
    const { findings } = judge(r.lines());
    expect(findings.find((f) => f.id === 'server/state-readable')?.lines).toEqual([a]);
    expect(findings.find((f) => f.id === 'server/state-identity-clear')?.reason).toContain(
      'principal',
    );
    // The state itself is never in the capture: only its digest.
    expect(r.text()).not.toContain(plain({ step: 'dataset', principal: 'alice' }));
    expect(r.text()).not.toContain('alice');
  });

  it('catches a client that edits, drops or invents the state, and one state sent twice at once', () => {
    const r = recorder();
    const s = sealed();
    const q1 = r.req('alice', 'tools/call', call());
    const a1 = r.res(q1, 'alice', inputRequired(s));
    const edited = r.req(
      'alice',
      'tools/call',
      call({ requestState: `${s}x`, inputResponses: {} }),
    );
    r.res(edited, 'alice', refused);
    const dropped = r.req('alice', 'tools/call', call({ inputResponses: { q: {} } }));
    r.res(dropped, 'alice', refused);
    const p1 = r.req('alice', 'tools/call', call({ requestState: s, inputResponses: {} }));
    const p2 = r.req('alice', 'tools/call', call({ requestState: s, inputResponses: {} }));
    r.res(p1, 'alice', done);
    r.res(p2, 'alice', refused);
    const invented = r.req('bob', 'tools/call', call({ requestState: sealed() }));
    r.res(invented, 'bob', refused);
    const { findings } = judge(r.lines());
    const at = (id: string) => findings.filter((f) => f.id === id).map((f) => f.lines);
    expect(at('client/state-altered')).toEqual([[a1, edited]]);
    expect(at('client/state-dropped')).toEqual([[a1, dropped]]);
    expect(at('client/state-parallel')).toEqual([[p1, p2]]);
    expect(at('client/state-invented')).toEqual([[invented]]);
  });

  it('a faithful client and a careful server: nothing found, every judgement decided', () => {
    const r = recorder();
    for (const who of ['alice', 'bob']) {
      const open = r.req(who, 'tools/call', { name: 'open_workspace', arguments: { label: 'x' } });
      const handle = `h.${randomBytes(24).toString('base64url')}`;
      r.res(open, who, { result: { structuredContent: { workspace_id: handle } } });
      const read = r.req(who, 'tools/call', {
        name: 'read_workspace',
        arguments: { workspace_id: handle },
      });
      r.res(read, who, { result: { structuredContent: { label: 'x' } } });
      const s = sealed();
      const q = r.req(who, 'tools/call', call());
      r.res(q, who, inputRequired(s));
      const retry = r.req(who, 'tools/call', call({ requestState: s, inputResponses: { q: {} } }));
      r.res(retry, who, done);
      // Bob tries alice's state after alice's flow; the server refuses, and the client is Bob's
      // test harness, so only client/state-* could speak: it is the issued state, unaltered.
      const again = r.req(who, 'tools/call', call({ requestState: s, inputResponses: { q: {} } }));
      r.res(again, who, refused);
    }
    const judged = judge(r.lines(), { maxAgeMs: 60_000 });
    expect(judged.findings).toEqual([]);
    expect(judged.skipped).toEqual({});
  });

  it('catches a server that accepts one state from two principals, and again after completion', () => {
    const r = recorder();
    const s = plain({ step: 'range' });
    const q = r.req('alice', 'tools/call', call());
    const issued = r.res(q, 'alice', inputRequired(s));
    const own = r.req('alice', 'tools/call', call({ requestState: s, inputResponses: {} }));
    const ownA = r.res(own, 'alice', done);
    const theirs = r.req('bob', 'tools/call', call({ requestState: s, inputResponses: {} }));
    const theirsA = r.res(theirs, 'bob', done);
    const { findings } = judge(r.lines());
    expect(findings.find((f) => f.id === 'server/state-cross-principal')?.lines).toEqual([
      issued,
      own,
      theirs,
      theirsA,
    ]);
    expect(findings.find((f) => f.id === 'server/state-after-completion')?.lines).toEqual([
      ownA,
      theirs,
      theirsA,
    ]);
  });

  it("catches one principal's handle accepted from another, and refusal clears it", () => {
    for (const accept of [true, false]) {
      const r = recorder();
      const open = r.req('alice', 'tools/call', { name: 'open_workspace', arguments: {} });
      const handle = `ws-${randomBytes(16).toString('hex')}`;
      const minted = r.res(open, 'alice', {
        result: { content: [{ type: 'text', text: JSON.stringify({ workspace_id: handle }) }] },
      });
      const read = r.req('bob', 'tools/call', {
        name: 'read_workspace',
        arguments: { workspace_id: handle },
      });
      const answer = r.res(
        read,
        'bob',
        accept
          ? { result: { content: [] } }
          : { result: { isError: true, content: [{ type: 'text', text: 'no such workspace' }] } },
      );
      const f = judge(r.lines()).findings.filter((x) => x.id === 'server/handle-cross-principal');
      expect(f.map((x) => x.lines)).toEqual(accept ? [[minted, read, answer]] : []);
    }
  });

  it('catches short and sequential ids, not random ones', () => {
    const mint = (values: string[]) => {
      const r = recorder();
      for (const v of values) {
        const q = r.req('alice', 'tools/call', { name: 'open_workspace', arguments: {} });
        r.res(q, 'alice', { result: { structuredContent: { workspace_id: v } } });
      }
      return judge(r.lines()).findings.filter((f) => f.id === 'server/guessable-ids');
    };
    const seq = Array.from(
      { length: 3 },
      (_, i) => `workspace-0000000000${100 + i}-of-this-server`,
    );
    expect(mint(seq).map((f) => f.reason)).toEqual([expect.stringContaining('count up')]);
    expect(mint(['ws-7f3a', `ws-${randomBytes(16).toString('hex')}`])[0]?.reason).toContain(
      'ws-7f3a',
    );
    expect(mint([1, 2, 3].map(() => `ws-${randomBytes(16).toString('hex')}`))).toEqual([]);
  });

  it('catches a state accepted past --max-age, by the capture times', () => {
    const r = recorder();
    const s = sealed();
    const q = r.req('alice', 'tools/call', call());
    r.res(q, 'alice', inputRequired(s));
    const retry = r.req('alice', 'tools/call', call({ requestState: s, inputResponses: {} }));
    r.res(retry, 'alice', done);
    const lines = r
      .lines()
      .map((l) =>
        l.n >= retry ? { ...l, t: new Date(Date.parse(l.t) + 3_600_000).toISOString() } : l,
      );
    expect(judge(lines, { maxAgeMs: 600_000 }).findings.map((f) => f.id)).toEqual([
      'server/accepted-after-max-age',
    ]);
    expect(judge(lines).skipped['server/accepted-after-max-age']).toBe('no --max-age given');
    expect(ids(lines)).toEqual([]);
  });

  it('SARIF results point at the capture file and lines', () => {
    const r = recorder();
    const q = r.req('alice', 'tools/call', call());
    const a = r.res(q, 'alice', inputRequired(plain({ step: 1 })));
    const retry = { requestState: plain({ step: 1 }), inputResponses: {} };
    r.res(r.req('alice', 'tools/call', call(retry)), 'alice', inputRequired(sealed()));
    r.res(r.req('bob', 'tools/call', call(retry)), 'bob', inputRequired(sealed()));
    const lines = r.lines();
    const report = captureReport(judge(lines), lines, {
      file: 'captures/run.jsonl',
      transport: 'stdio',
      target: 'node server.js',
      startedAt: new Date().toISOString(),
      ms: 1,
    });
    const sarif = toSarif(report, { color: false, evidence: 'summary' });
    const result = sarif.runs[0]?.results?.find((x) => x.ruleId === 'server/state-readable');
    expect(result?.locations?.[0]?.physicalLocation).toMatchObject({
      artifactLocation: { uri: 'captures/run.jsonl' },
      region: { startLine: a },
    });
    const cross = sarif.runs[0]?.results?.find((x) => x.ruleId === 'server/state-cross-principal');
    expect(cross?.locations?.[0]?.physicalLocation?.region?.startLine).toBe(a);
    expect(cross?.relatedLocations).toHaveLength(3);
    const rule = sarif.runs[0]?.tool.driver.rules?.find(
      (x) => x.id === 'server/state-cross-principal',
    );
    expect(rule?.help?.text).toContain('SHOULD bind requestState to the principal');
    expect(schemaProblems(sarif)).toEqual([]);
  });
});
