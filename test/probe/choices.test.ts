/**
 * The other values discovery tries (`surface/choices.ts`): the values a schema lists, the
 * parameter with fewest values first, a few at most, and never on a tool that may write.
 */
import { describe, expect, it } from 'vitest';
import { choicesFor, valuesOffered } from '../../src/probe/surface/choices.js';
import type { ToolInfo } from '../../src/probe/model/tools.js';

const reader = (properties: Record<string, unknown>, required: string[] = []): ToolInfo => ({
  name: 'show_ticket',
  inputSchema: { type: 'object', properties, required },
  annotations: { readOnlyHint: true },
});

describe('the values a parameter offers', () => {
  it('reads an enum, a union of constants, a boolean and examples', () => {
    expect(valuesOffered({ enum: ['low', 'urgent'] })).toEqual(['low', 'urgent']);
    expect(
      valuesOffered({ oneOf: [{ const: 'a', title: 'A' }, { const: 'b' }, { type: 'null' }] }),
    ).toEqual(['a', 'b']);
    expect(valuesOffered({ anyOf: [{ const: 1 }, { type: 'string' }] })).toEqual([]);
    expect(valuesOffered({ type: 'boolean' })).toEqual([true, false]);
    expect(valuesOffered({ type: 'string', examples: ['EU', 'US', { x: 1 }] })).toEqual([
      'EU',
      'US',
    ]);
  });

  it('bounds what a hostile schema lists', () => {
    const many = Array.from({ length: 10_000 }, (_, i) => `v${i}`);
    expect(valuesOffered({ enum: many })).toHaveLength(16);
    expect(valuesOffered({ enum: ['x'.repeat(10_000), 'ok'] })).toEqual(['ok']);
  });
});

describe('the choices tried on a tool', () => {
  it('tries the parameter with fewest values first, never the placeholder value, at most 3', () => {
    const tool = reader(
      {
        priority: { enum: ['low', 'normal', 'high', 'urgent'] },
        options: { type: 'object', properties: { confirm: { type: 'boolean' } } },
        mode: { type: 'string', enum: ['preview', 'commit'] },
      },
      ['priority', 'mode'],
    );
    expect(choicesFor(tool)).toEqual([
      { path: ['options', 'confirm'], value: true },
      { path: ['mode'], value: 'commit' },
      { path: ['priority'], value: 'normal' },
    ]);
  });

  it('leaves the default of a parameter left out, and a constant, alone', () => {
    const tool = reader({
      level: { enum: ['a', 'b'], default: 'b' },
      kind: { const: 'fixed' },
      dry: { type: 'boolean', default: true },
    });
    expect(choicesFor(tool)).toEqual([
      { path: ['level'], value: 'a' },
      { path: ['dry'], value: false },
    ]);
  });

  it('tries nothing on a tool that may write, whose class is unknown, or that acts', () => {
    const writer: ToolInfo = {
      name: 'update_ticket',
      inputSchema: { type: 'object', properties: { priority: { enum: ['low', 'urgent'] } } },
    };
    expect(choicesFor(writer)).toEqual([]);
    expect(choicesFor({ ...writer, name: 'ticket', annotations: { readOnlyHint: false } })).toEqual(
      [],
    );
    // A creating tool is varied: a new object for the caller, whatever its priority.
    expect(choicesFor({ ...writer, name: 'create_ticket' }).length).toBeGreaterThan(0);
  });
});
