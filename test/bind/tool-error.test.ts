import { describe, expect, it } from 'vitest';
import {
  createHandleBinder,
  HandleRejectedError,
  handleToolError,
  withHandleErrors,
  type HandleRejection,
} from '../../src/index.js';

const binder = createHandleBinder({ keys: 'k'.repeat(32), audience: 'notes' });

function rejectionFor(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

describe('handleToolError', () => {
  const handle = binder.mint('alice', 'workspace');
  const failures: [string, () => unknown][] = [
    ['a foreign handle', () => binder.open(handle, 'bob', 'workspace')],
    ['a handle of another kind', () => binder.open(handle, 'alice', 'basket')],
    ['a forged handle', () => binder.open(`${handle.slice(0, -2)}AA`, 'alice', 'workspace')],
    ['garbage', () => binder.open('not a handle', 'alice', 'workspace')],
  ];

  it('answers every refused handle with the same tool error and logs distinct reasons', () => {
    const reasons: HandleRejection[] = [];
    const results = failures.map(([, run]) =>
      handleToolError(rejectionFor(run), { kind: 'workspace', onRejected: (r) => reasons.push(r) }),
    );
    for (const result of results) {
      expect(result).toEqual({
        content: [{ type: 'text', text: 'unknown or expired workspace handle' }],
        isError: true,
      });
    }
    expect(reasons).toEqual(['principal', 'kind', 'auth', 'malformed']);
  });

  it('needs no log hook', () => {
    const refused = rejectionFor(() => binder.open('h1.AAAA', 'alice', 'workspace'));
    expect(handleToolError(refused, { kind: 'workspace' })).toEqual({
      content: [{ type: 'text', text: 'unknown or expired workspace handle' }],
      isError: true,
    });
  });

  it('rethrows anything that is not a refused handle', () => {
    const bug = new Error('database exploded');
    expect(() => handleToolError(bug, { kind: 'workspace' })).toThrow(bug);
  });
});

describe('withHandleErrors', () => {
  it('passes results through and turns a refused handle into the uniform tool error', async () => {
    const seen: HandleRejection[] = [];
    const tool = withHandleErrors(
      { kind: 'basket', onRejected: (r) => seen.push(r) },
      async (handle: string, principal: string) => {
        const { kind } = binder.open(handle, principal, 'basket');
        return { content: [{ type: 'text' as const, text: `opened ${kind}` }] };
      },
    );
    const handle = binder.mint('alice', 'basket');
    expect(await tool(handle, 'alice')).toEqual({
      content: [{ type: 'text', text: 'opened basket' }],
    });
    expect(await tool(handle, 'mallory')).toEqual({
      content: [{ type: 'text', text: 'unknown or expired basket handle' }],
      isError: true,
    });
    expect(seen).toEqual(['principal']);
  });

  it('lets other errors escape, so a bug never reads as a bad handle', async () => {
    const tool = withHandleErrors({ kind: 'basket' }, async () => {
      throw new RangeError('bug');
    });
    await expect(tool()).rejects.toThrow(RangeError);
  });

  it('refuses an invalid kind when the tool is wrapped', () => {
    expect(() => withHandleErrors({ kind: 'not a kind' }, () => 1)).toThrow(TypeError);
    expect(() => handleToolError(new HandleRejectedError('auth'), { kind: '' })).toThrow(TypeError);
  });
});
