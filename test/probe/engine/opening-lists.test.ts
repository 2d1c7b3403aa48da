/**
 * Which lists the opening asks besides the tools: those of the capabilities a server's
 * `server/discover` declares, every one when the capabilities are unknown. (The whole-scan count of
 * the flawed twin, which declares tools alone, is in request-budget.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import { readLists, undeclaredLists } from '../../../src/probe/target/session-lists.js';
import type { Outcome } from '../../../src/probe/model/wire.js';

/** The methods the opening sends for `capabilities`, each answered with one item. */
async function asked(capabilities: Record<string, unknown> | undefined): Promise<string[]> {
  const sent: string[] = [];
  const lists = await readLists(async (method): Promise<Outcome> => {
    sent.push(method);
    return {
      kind: 'result',
      result: {
        prompts: [{ name: 'p' }],
        resources: [{ uri: 'mem://r' }],
        resourceTemplates: [{ uriTemplate: 'mem://{id}' }],
      },
    };
  }, undeclaredLists(capabilities));
  // What is asked is read; what is not stays empty.
  expect(lists.prompts.length).toBe(sent.includes('prompts/list') ? 1 : 0);
  expect(lists.resources.length).toBe(sent.includes('resources/list') ? 1 : 0);
  return sent;
}

describe('the lists of the opening', () => {
  it('asks every list when the capabilities are unknown', async () => {
    expect(await asked(undefined)).toEqual([
      'prompts/list',
      'resources/list',
      'resources/templates/list',
    ]);
  });

  it('asks none of a server that declares tools alone', async () => {
    expect(await asked({ tools: {} })).toEqual([]);
  });

  it('asks only the declared ones: prompts without resources, and resources without prompts', async () => {
    expect(await asked({ tools: {}, prompts: { listChanged: true } })).toEqual(['prompts/list']);
    expect(await asked({ resources: {} })).toEqual(['resources/list', 'resources/templates/list']);
  });
});
