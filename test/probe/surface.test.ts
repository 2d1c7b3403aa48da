import { describe, expect, it } from 'vitest';
import {
  argumentsFor,
  callableTools,
  destructiveReason,
  handlePairs,
  mintedValue,
  valueFor,
} from '../../src/probe/surface/schema.js';
import type { ToolInfo } from '../../src/probe/types.js';

const tool = (name: string, extra: Partial<ToolInfo> = {}): ToolInfo => ({ name, ...extra });

describe('the destructive filter', () => {
  it.each([
    ['delete_file', {}],
    ['purgeCache', {}],
    ['workspace-archive', {}],
    ['transfer_funds', {}],
    ['send_email', {}],
    ['cancel_order', {}],
    ['harmless', { annotations: { destructiveHint: true } }],
    ['tidy', { description: 'Removes entries older than a week.' }],
    ['sync', { description: 'Overwrites the remote copy with yours.' }],
    ['delete_note', { annotations: { readOnlyHint: true } }],
    ['reset_password_info', { description: 'Explains the policy' }],
    ['purchase_item', {}],
    ['deployRelease', {}],
    ['publish-post', {}],
    ['rollback_migration', {}],
    ['tidy_docs', { description: 'Shreds the document once read.' }],
  ])('leaves %s alone', (name, extra) => {
    expect(destructiveReason(tool(name, extra))).toBeDefined();
  });

  it.each([
    ['read_workspace', {}],
    [
      'export_workspace',
      { description: 'Export a workspace by its handle. Asks the user to confirm first.' },
    ],
    ['open_workspace', { annotations: { destructiveHint: false } }],
    ['list_items', { description: 'Lists items; never deletes or removes anything.' }],
    ['sender_stats', {}],
  ])('calls %s', (name, extra) => {
    expect(destructiveReason(tool(name, extra))).toBeUndefined();
  });

  it('keeps destructive tools only with the flag', () => {
    const tools = [tool('read_x'), tool('delete_x')];
    expect(callableTools(tools, false).map((t) => t.name)).toEqual(['read_x']);
    expect(callableTools(tools, true)).toHaveLength(2);
  });
});

describe('arguments from a JSON Schema', () => {
  const opts = { canary: 'sg-c-0123456789abcdef', boolean: false };

  it('are type-correct, respect constraints, and plant the canary in free-form strings', () => {
    const schema = {
      type: 'object',
      properties: {
        label: { type: 'string' },
        count: { type: 'integer', minimum: 3 },
        ratio: { type: 'number' },
        mode: { type: 'string', enum: ['fast', 'slow'] },
        force: { type: 'boolean' },
        tags: { type: 'array', items: { type: 'string' }, minItems: 2 },
        when: { type: 'string', format: 'date-time' },
        short: { type: 'string', maxLength: 5 },
        nested: { type: 'object', properties: { x: { type: 'string' } }, required: ['x'] },
        optionalNumber: { type: 'number' },
      },
      required: ['count', 'ratio', 'mode', 'force', 'tags', 'when', 'short', 'nested'],
    };
    const args = argumentsFor(schema, opts);
    expect(args).toMatchObject({
      label: opts.canary,
      count: 3,
      ratio: 1,
      mode: 'fast',
      force: false,
      tags: [opts.canary, opts.canary],
      short: 'sg-c-',
      nested: { x: opts.canary },
    });
    expect(Number.isNaN(Date.parse(args['when'] as string))).toBe(false);
    expect(args).not.toHaveProperty('optionalNumber');
  });

  it('answer a yes/no question yes when asked to', () => {
    expect(valueFor({ type: 'boolean' }, { ...opts, boolean: true })).toBe(true);
    expect(valueFor({ anyOf: [{ type: 'null' }, { type: 'integer' }] }, opts)).toBe(1);
  });

  it('take supplied values, such as a minted handle', () => {
    const schema = {
      type: 'object',
      properties: { workspace_id: { type: 'string' } },
      required: ['workspace_id'],
    };
    expect(argumentsFor(schema, opts, { workspace_id: 'ws-1' })).toEqual({ workspace_id: 'ws-1' });
  });
});

describe('handles', () => {
  const wsArg = {
    type: 'object',
    properties: { workspace_id: { type: 'string' } },
    required: ['workspace_id'],
  };
  const tools = [
    tool('open_workspace', {
      inputSchema: { type: 'object', properties: { label: { type: 'string' } } },
    }),
    tool('export_workspace', { inputSchema: wsArg }),
    tool('read_workspace', { inputSchema: wsArg, annotations: { readOnlyHint: true } }),
    tool('get_weather', {
      inputSchema: { type: 'object', properties: { city: { type: 'string' } } },
    }),
  ];

  it('pair a minter with its consumers, read-only consumers first', () => {
    const pairs = handlePairs(tools).map((p) => `${p.minter.name}→${p.consumer.name}`);
    expect(pairs).toEqual(['open_workspace→read_workspace', 'open_workspace→export_workspace']);
  });

  it('are found in structured content or JSON text, by key or by a bare id', () => {
    const minter = tools[0]!;
    expect(
      mintedValue({ structuredContent: { workspace_id: 'ws-9' } }, 'workspace_id', minter),
    ).toBe('ws-9');
    const text = { content: [{ type: 'text', text: JSON.stringify({ workspaceId: 'ws-8' }) }] };
    expect(mintedValue(text, 'workspace_id', minter)).toBe('ws-8');
    expect(mintedValue({ structuredContent: { id: 'ws-7' } }, 'workspace_id', minter)).toBe('ws-7');
    expect(mintedValue({ structuredContent: { id: 'x' } }, 'basket_id', minter)).toBeUndefined();
    expect(
      mintedValue({ content: [{ type: 'text', text: 'opened ws-1' }] }, 'workspace_id', minter),
    ).toBeUndefined();
  });
});
