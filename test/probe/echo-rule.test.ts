import { describe, expect, it } from 'vitest';
import { distinctTokens, makeCanary, tokensOf } from '../../src/probe/evidence/markers.js';
import {
  base64Cores,
  carries,
  jsonIn,
  markerCounts,
  showsToken,
} from '../../src/probe/evidence/echo.js';

const canary = makeCanary('test');

describe('canaries', () => {
  it('are fresh, tagged and made of characters no encoding step alters', () => {
    const other = makeCanary('test');
    expect(canary).not.toBe(other);
    expect(canary).toMatch(/^sg-test-[0-9a-f]{24}$/);
    expect(encodeURIComponent(canary)).toBe(canary);
  });
});

describe('a request carries a marker', () => {
  const embedded = (prefix: string) => `${prefix}${canary}-suffix`;

  it('raw, anywhere in any string or key', () => {
    expect(carries({ arguments: { label: `x ${canary} y` } }, canary)).toBe(true);
    expect(carries({ [canary]: 1 }, canary)).toBe(true);
  });

  it.each([0, 1, 2, 3, 4])('inside base64 and base64url at byte offset %i', (offset) => {
    const plain = embedded('p'.repeat(offset));
    const b64 = Buffer.from(JSON.stringify({ label: plain })).toString('base64');
    const b64url = Buffer.from(JSON.stringify({ label: plain })).toString('base64url');
    expect(carries({ workspace_id: b64 }, canary)).toBe(true);
    expect(carries({ workspace_id: `ws.${b64url}.sig` }, canary)).toBe(true);
  });

  it('hex-encoded, URL-encoded, and base64 nested in URL encoding', () => {
    expect(carries({ h: Buffer.from(embedded('z')).toString('hex') }, canary)).toBe(true);
    const marker = 'alice smith/ü';
    expect(carries({ u: `https://x.invalid/?who=${encodeURIComponent(marker)}` }, marker)).toBe(
      true,
    );
    const inner = encodeURIComponent(Buffer.from(embedded('')).toString('base64'));
    expect(carries({ u: inner }, canary)).toBe(true);
  });

  it('not when the request holds only unrelated values', () => {
    expect(carries({ workspace_id: 'ws-0123456789abcdef', label: makeCanary('x') }, canary)).toBe(
      false,
    );
  });

  it('in a raw-only key only when the marker is there verbatim', () => {
    const state = Buffer.from(JSON.stringify({ label: canary })).toString('base64url');
    const opts = { rawOnlyKeys: ['requestState'] };
    expect(carries({ requestState: state }, canary, opts)).toBe(false);
    expect(carries({ requestState: state }, canary)).toBe(true);
    expect(carries({ requestState: `{"label":"${canary}"}` }, canary, opts)).toBe(true);
  });

  it('has base64 cores for all three alignments', () => {
    expect(base64Cores(canary)).toHaveLength(3);
  });
});

describe('a marker counts', () => {
  it('only when the answer shows it and the request did not carry it', () => {
    const answer = { content: [{ type: 'text', text: `label ${canary}` }] };
    expect(markerCounts(canary, answer, { workspace_id: 'ws-1234' })).toBe(true);
    const echoHandle = Buffer.from(canary).toString('base64url');
    expect(markerCounts(canary, answer, { workspace_id: echoHandle })).toBe(false);
    expect(markerCounts(canary, { content: [] }, {})).toBe(false);
  });

  it('from a decoded requestState, unless the answer repeats the whole decoded state', () => {
    const decoded = { principal: canary, step: 'confirm' };
    const sent = { requestState: Buffer.from(JSON.stringify(decoded)).toString('base64url') };
    const opts = { rawOnlyKeys: ['requestState'] };
    const acted = { content: [{ type: 'text', text: `done as principal ${canary}` }] };
    expect(markerCounts(canary, acted, sent, opts)).toBe(true);
    expect(showsToken(acted, [canary], sent, opts)).toBe(canary);
    // An echo of the decoded blob, as an object or as escaped JSON inside a text: no evidence.
    const asObject = { structuredContent: { decoded } };
    const asText = { content: [{ type: 'text', text: JSON.stringify({ decoded }) }] };
    // Pretty-printed with the keys in another order: the same blob, never the same bytes.
    const reordered = { step: 'confirm', principal: canary, seenAt: 'noon' };
    const asPretty = { content: [{ type: 'text', text: JSON.stringify({ reordered }, null, 2) }] };
    for (const echo of [asObject, asText, asPretty]) {
      expect(markerCounts(canary, echo, sent, opts)).toBe(false);
      expect(showsToken(echo, [canary], sent, opts)).toBeUndefined();
    }
    // Only part of the blob, or a field changed: the server named what it acted on.
    const part = { structuredContent: { principal: canary, step: 'done' } };
    expect(markerCounts(canary, part, sent, opts)).toBe(true);
  });

  describe('never from an echo of the decoded state, in whatever form it comes back', () => {
    const decoded = { principal: canary, workspace: 'ws-77', step: 'confirm' };
    const sent = {
      arguments: { label: 'x' },
      requestState: Buffer.from(JSON.stringify(decoded)).toString('base64url'),
    };
    const opts = { rawOnlyKeys: ['requestState'] };
    const json = JSON.stringify({ arguments: sent.arguments, state: decoded });
    const pretty = JSON.stringify({ state: decoded }, null, 2);
    const text = (t: string) => ({ content: [{ type: 'text', text: t }] });
    const forms: [string, unknown][] = [
      ['after a prose header', text(`Here is what you sent:\n${pretty}\nDone.`)],
      ['in a Markdown code fence', text(`Received.\n\n\`\`\`json\n${pretty}\n\`\`\`\n`)],
      ['as JSON text inside a string field', { structuredContent: { debug: json } }],
      ['base64url in a trace line', text(`ok trace=${Buffer.from(json).toString('base64url')}`)],
      ['URL-encoded in a link', text(`see https://x.invalid/?q=${encodeURIComponent(json)}`)],
      [
        'as key: value lines',
        text(`state.principal: ${canary}\nstate.workspace: ws-77\nstate.step: confirm`),
      ],
      [
        'in an embedded resource',
        { content: [{ type: 'resource', resource: { uri: 'x://1', text: json } }] },
      ],
    ];
    it.each(forms)('%s', (_form, answer) => {
      expect(markerCounts(canary, answer, sent, opts)).toBe(false);
      expect(showsToken(answer, [canary], sent, opts)).toBeUndefined();
    });
  });
});

describe('JSON written inside text', () => {
  it('is found at any offset, pretty or not, and a bracket in prose does not stop it', () => {
    const found = jsonIn(
      'Note [1]: the call {"a": {"b": [1, 2]}} and then\n```json\n{\n  "c": "}"\n}\n```',
    );
    expect(found).toEqual([[1], { a: { b: [1, 2] } }, { c: '}' }]);
  });
});

describe('tokens that tell identities apart', () => {
  it('keep what both A records say and B never does, and drop clocks, handles and canaries', () => {
    const a1 = { owner: 'alice-token', at: '2026-08-01T10:00:00Z', id: 'ws-1', label: canary };
    const b = { owner: 'bob-token', at: '2026-08-01T10:00:01Z', id: 'ws-2', label: 'other' };
    const a2 = { owner: 'alice-token', at: '2026-08-01T10:00:02Z', id: 'ws-3', label: 'x' };
    expect(distinctTokens([a1, a2], [b], ['ws-1', 'ws-3', canary])).toEqual(['alice-token']);
  });

  it('find nothing when both identities are answered alike', () => {
    const rec = (n: number) => ({ owner: 'anonymous', nonce: `n${n}x${n}` });
    expect(distinctTokens([rec(1), rec(3)], [rec(2)], [])).toEqual([]);
  });

  it('match whole tokens only, and not when the request carried them', () => {
    expect(tokensOf({ text: 'exported x as principal alice-token.' }).has('alice-token')).toBe(
      true,
    );
    expect(showsToken({ owner: 'alice-tokenX' }, ['alice-token'], {})).toBeUndefined();
    expect(showsToken({ owner: 'alice-token' }, ['alice-token'], {})).toBe('alice-token');
    expect(
      showsToken({ owner: 'alice-token' }, ['alice-token'], { h: 'alice-token' }),
    ).toBeUndefined();
  });
});
