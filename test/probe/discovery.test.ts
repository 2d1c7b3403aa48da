/**
 * Discovery's pieces on their own: what two identical minting calls minted (what differs between
 * their answers, wherever it sits), the fallback for a deterministic mint, how a value is fitted
 * to a parameter, and how a consumer of several minted values is filled slot by slot. The
 * end-to-end proof (servers nobody here wrote) is foreign-proof.test.ts.
 */
import { describe, expect, it } from 'vitest';
import {
  findLike,
  harvestMint,
  heldValues,
  mintedByDifference,
} from '../../src/probe/surface/harvest.js';
import type { Found } from '../../src/probe/model/surface-map.js';
import { consumerCall, recipeName, type HandleRecipe } from '../../src/probe/surface/recipes.js';
import { fillSlots, fitScore, surveyOrder } from '../../src/probe/surface/survey.js';
import type { ToolInfo } from '../../src/probe/model/tools.js';

const text = (t: string) => ({ type: 'text', text: t });
const prose = (t: string) => ({ content: [text(t)] });
const values = (found: readonly Found[]) => found.map((f) => f.value);

describe('what two identical minting calls minted', () => {
  it('is the booking code in prose, whatever characters it drew', () => {
    // All letters, all digits, mixed: found alike, by difference alone.
    for (const [a, b] of [
      ['BK-QWERTY', 'BK-ZXCVBN'],
      ['BK-123456', 'BK-987654'],
      ['BK-7Q2M9X', 'BK-A1B2C3'],
      ['QWERTY', '123456'],
    ] as const) {
      const found = mintedByDifference(
        [prose(`Your booking ${a} is confirmed for 1.`)],
        [prose(`Your booking ${b} is confirmed for 1.`)],
      );
      expect(values(found)).toEqual([a]);
      expect(found[0]).toMatchObject({ kind: 'prose', varying: true, round: 0 });
      // A fresh mint's code is the value at the same place.
      expect(findLike([prose('Your booking 000000 is confirmed for 1.')], found[0]!)).toBe(
        '000000',
      );
    }
  });

  it('sits at any depth: structured content, arrays of objects, _meta, links, embedded resources', () => {
    const answer = (n: string) => ({
      content: [
        text('Saved.'),
        { type: 'resource_link', uri: `snippet://${n}`, name: 'x' },
        { type: 'resource', resource: { uri: `notes://${n}`, text: 'n' } },
        text(`{"ledger": "lg-${n}"}`),
      ],
      structuredContent: {
        booking: { confirmation: { bookingCode: `TRV-${n}` } },
        items: [{ id: `i-${n}` }],
      },
      _meta: { 'com.example/cartId': `cart-${n}` },
    });
    const found = mintedByDifference([answer('aaaa')], [answer('bbbb')]);
    const byValue = Object.fromEntries(found.map((f) => [f.value, [f.kind, f.key]]));
    expect(byValue).toEqual({
      'snippet://aaaa': ['link', 'uri'],
      'notes://aaaa': ['link', 'uri'],
      'lg-aaaa': ['json', 'ledger'],
      'TRV-aaaa': ['structured', 'bookingCode'],
      'i-aaaa': ['structured', 'id'],
      // A key with a dot reads by its last step: only a hint for fitting.
      'cart-aaaa': ['meta', 'example/cartId'],
    });
    const fresh = answer('cccc');
    for (const f of found) expect(findLike([fresh], f)).toBe(f.value.replace('aaaa', 'cccc'));
  });

  it('keeps a value stated twice where it has a key, and reads an integer as one', () => {
    const answer = (id: number) => ({
      content: [text(`Filed ticket #${id}.`)],
      structuredContent: { ticket: { id, status: 'open' } },
    });
    const found = mintedByDifference([answer(1)], [answer(2)]);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ value: '1', key: 'id', kind: 'structured', numeric: true });
  });

  it('includes a ticking clock (the consumer tells it apart), never the state or the result type', () => {
    const answer = (at: string, state: string) => ({
      resultType: 'complete',
      requestState: state,
      content: [text(`Noted at ${at}.`)],
    });
    const found = mintedByDifference(
      [answer('2026-12-01T10:00:00Z', 's1')],
      [answer('2026-12-01T10:00:01Z', 's2')],
    );
    expect(values(found)).toEqual(['2026-12-01T10:00:00Z']);
  });

  it('lines up round by round', () => {
    const found = mintedByDifference(
      [prose('Asked.'), prose('Opened CS-1.')],
      [prose('Asked.'), prose('Opened CS-2.')],
    );
    expect(found[0]).toMatchObject({ value: 'CS-1', round: 1 });
    expect(findLike([prose('Asked.')], found[0]!)).toBeUndefined();
    expect(findLike([prose('Asked.'), prose('Opened CS-9.')], found[0]!)).toBe('CS-9');
  });
});

describe('a deterministic mint', () => {
  const request = { name: 'make_token', arguments: { note: 'sg-survey-0123' } };
  const answer = {
    content: [text('Token tok-c2ctc3VydmV5 for sg-survey-0123.')],
    structuredContent: { token: 'tok-c2ctc3VydmV5', note: 'sg-survey-0123' },
  };

  it('offers what its answer holds and the request did not carry, whole values first', () => {
    const held = heldValues([answer], [request]);
    expect(values(held)[0]).toBe('tok-c2ctc3VydmV5');
    expect(values(held)).not.toContain('sg-survey-0123');
    expect(held.every((f) => f.varying === undefined)).toBe(true);
  });

  it('is the fallback only: anything that varies comes instead', () => {
    expect(values(harvestMint([answer], [answer], [request]))[0]).toBe('tok-c2ctc3VydmV5');
    const other = { ...answer, _meta: { n: 'x2' } };
    expect(values(harvestMint([{ ...answer, _meta: { n: 'x1' } }], [other], [request]))).toEqual([
      'x1',
    ]);
  });
});

describe('fitting a value to a parameter', () => {
  const minter: ToolInfo = { name: 'bookTrip' };
  const offer = (value: string, key?: string, varying = true) => ({
    minter,
    found: {
      value,
      kind: 'structured' as const,
      where: 'x',
      round: 0,
      position: { path: `structuredContent.${key ?? 'v'}`, value },
      ...(key ? { key } : {}),
      ...(varying ? { varying: true as const } : {}),
    },
  });

  it('lets the schema rule a value out: pattern, lengths, format', () => {
    const slot = (schema: Record<string, unknown>) => ({ path: ['code'], schema, required: true });
    expect(fitScore(slot({ pattern: '^TRV-' }), offer('XYZ-1'))).toBeUndefined();
    expect(fitScore(slot({ maxLength: 4 }), offer('TRV-12345'))).toBeUndefined();
    expect(fitScore(slot({ format: 'uri' }), offer('TRV-1'))).toBeUndefined();
    expect(fitScore(slot({ pattern: '^TRV-' }), offer('TRV-1'))).toBeGreaterThan(0);
  });

  it('ranks the value whose key matches the parameter above the one whose tool name does', () => {
    const slot = { path: ['lookup', 'bookingCode'], schema: {}, required: true };
    const byKey = fitScore(slot, offer('TRV-1', 'bookingCode')) ?? -1;
    const other = fitScore(slot, offer('stateguard-x1', 'traveller')) ?? -1;
    expect(byKey).toBeGreaterThan(other);
  });

  it('scores a value by where it sat, never by its characters', () => {
    const slot = { path: ['code'], schema: {}, required: true };
    const scores = ['QWERTY', '123456', '7Q2M9X'].map((v) => fitScore(slot, offer(v)));
    expect(new Set(scores).size).toBe(1);
    // Minted by difference ranks above a value a deterministic answer merely held.
    expect(fitScore(slot, offer('QWERTY'))).toBeGreaterThan(
      fitScore(slot, offer('QWERTY', undefined, false)) ?? 99,
    );
  });
});

describe('a consumer of several minted values', () => {
  const contacts: ToolInfo = { name: 'create_contact' };
  const segments: ToolInfo = { name: 'create_segment' };
  const adder: ToolInfo = {
    name: 'add_to_segment',
    inputSchema: {
      type: 'object',
      properties: {
        contactId: { type: 'string' },
        segmentId: { type: 'string' },
        note: { type: 'string' },
      },
      required: ['contactId', 'segmentId'],
    },
  };
  const found = (value: string, key: string): Found => ({
    value,
    key,
    kind: 'structured',
    where: `r0:structuredContent.${key}`,
    round: 0,
    position: { path: `structuredContent.${key}`, value },
    varying: true,
  });
  const slot = (name: string) => ({ path: [name], schema: { type: 'string' }, required: true });

  it('fills each slot with its best value, a different value and place for each', () => {
    const c = { minter: contacts, found: found('ct-1', 'contactId') };
    const s = { minter: segments, found: found('sg-1', 'segmentId') };
    const filled = fillSlots([
      { slot: slot('contactId'), offer: c },
      { slot: slot('segmentId'), offer: c },
      { slot: slot('contactId'), offer: s },
      { slot: slot('segmentId'), offer: s },
    ]);
    expect(filled.map((f) => [f.slot.path[0], f.offer.found.value])).toEqual([
      ['contactId', 'ct-1'],
      ['segmentId', 'sg-1'],
    ]);
  });

  it("presents one slot's value with the caller's own values in the others", () => {
    const recipe: HandleRecipe = {
      minter: contacts,
      found: found('ct-1', 'contactId'),
      consumer: {
        kind: 'tool',
        tool: adder,
        path: ['contactId'],
        others: [{ path: ['segmentId'], minter: segments, found: found('sg-1', 'segmentId') }],
      },
      checked: true,
    };
    const call = consumerCall(recipe.consumer, 'ct-A', 'sg-canary', ['sg-B']);
    expect(call.params['arguments']).toEqual({
      contactId: 'ct-A',
      segmentId: 'sg-B',
      note: 'sg-canary',
    });
    expect(recipeName(recipe)).toBe(
      'create_contact → add_to_segment.contactId (own segmentId from create_segment)',
    );
  });
});

describe('the order of the survey', () => {
  it('puts what can mint or consume first, a read-only report without parameters last', () => {
    const tools: ToolInfo[] = [
      { name: 'server_time', annotations: { readOnlyHint: true } },
      {
        name: 'show',
        inputSchema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
      },
      {
        name: 'create',
        inputSchema: { type: 'object', properties: { title: { type: 'string' } } },
      },
    ];
    expect(surveyOrder(tools).map((t) => t.name)).toEqual(['create', 'show', 'server_time']);
  });
});
