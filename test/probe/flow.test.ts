import { describe, expect, it } from 'vitest';
import { answerInputs, preferredShape } from '../../src/probe/driver/answers.js';
import { readOutcome } from '../../src/probe/driver/rounds.js';

describe('reading an outcome', () => {
  it('takes a JSON-RPC error and an isError result as refusals', () => {
    expect(readOutcome({ kind: 'error', code: -32602, message: 'bad state' })).toBe('refused');
    expect(readOutcome({ kind: 'result', result: { isError: true, content: [] } })).toBe('refused');
  });

  it('never takes a failure, or an unknown result type, as a refusal', () => {
    for (const failure of ['timeout', 'http-status', 'empty', 'not-json', 'closed'] as const) {
      expect(readOutcome({ kind: 'failure', failure, detail: '' })).toBe('failure');
    }
    expect(readOutcome({ kind: 'result', result: { resultType: 'deferred' } })).toBe('failure');
  });

  it("takes the Tasks extension's task answer as an acceptance", () => {
    const task = { resultType: 'task', taskId: 't', status: 'working' };
    expect(readOutcome({ kind: 'result', result: task })).toBe('accepted');
  });

  it('tells completion from a request for input', () => {
    expect(readOutcome({ kind: 'result', result: { content: [] } })).toBe('accepted');
    expect(readOutcome({ kind: 'result', result: { resultType: 'complete' } })).toBe('accepted');
    expect(readOutcome({ kind: 'result', result: { resultType: 'input_required' } })).toBe('input');
  });
});

describe('answering input requests', () => {
  const elicit = {
    method: 'elicitation/create',
    params: {
      message: 'Go ahead?',
      requestedSchema: {
        type: 'object',
        properties: { confirm: { type: 'boolean' }, note: { type: 'string' } },
        required: ['confirm'],
      },
    },
  };

  it('answers a spec elicitation with an accepted ElicitResult of typed values', () => {
    expect(preferredShape({ confirm: elicit })).toBe('spec');
    const out = answerInputs({ confirm: elicit }, 'spec');
    expect(out['confirm']).toMatchObject({ action: 'accept', content: { confirm: true } });
    expect(typeof (out['confirm'] as { content: { note: unknown } }).content.note).toBe('string');
  });

  it('answers a request that only names a schema with a bare value of its type', () => {
    const asked = { confirm: { type: 'boolean' }, amount: { schema: { type: 'integer' } } };
    expect(preferredShape(asked)).toBe('bare');
    expect(answerInputs(asked, 'bare')).toEqual({ confirm: true, amount: 1 });
    expect(answerInputs(asked, 'spec')).toEqual({
      confirm: { action: 'accept', content: true },
      amount: { action: 'accept', content: 1 },
    });
  });

  it('answers sampling, roots and URL elicitation in their own result shapes', () => {
    const out = answerInputs(
      {
        s: { method: 'sampling/createMessage', params: {} },
        r: { method: 'roots/list' },
        u: { method: 'elicitation/create', params: { mode: 'url', url: 'https://x.invalid' } },
      },
      'spec',
    );
    expect(out['s']).toMatchObject({ role: 'assistant', content: { type: 'text' } });
    expect(out['r']).toEqual({ roots: [] });
    expect(out['u']).toEqual({ action: 'accept' });
  });
});
