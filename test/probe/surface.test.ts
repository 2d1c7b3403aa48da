import { describe, expect, it } from 'vitest';
import {
  argumentsFor,
  isReferenceName,
  pathKey,
  slotsOf,
  valueFor,
} from '../../src/probe/driver/schema.js';
import { callableTools } from '../../src/probe/plan/tool-risk.js';
import { riskReason as destructiveReason } from '../../src/probe/plan/tool-risk.js';
import type { ToolInfo } from '../../src/probe/model/tools.js';

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

  it("keeps destructive tools only with the user's word: --include-destructive, or --allow-tool by name", () => {
    const tools = [tool('read_x'), tool('delete_x'), tool('frobnicate_x')];
    expect(callableTools(tools, { includeDestructive: false }).map((t) => t.name)).toEqual([
      'read_x',
    ]);
    expect(callableTools(tools, { includeDestructive: true })).toHaveLength(3);
    const allowed = { includeDestructive: false, allowTools: new Set(['delete_x']) };
    expect(callableTools(tools, allowed).map((t) => t.name)).toEqual(['read_x', 'delete_x']);
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

describe('parameters and nested arguments', () => {
  const opts = { canary: 'sg-c-0123456789abcdef', boolean: false };
  const schema = {
    type: 'object',
    properties: {
      lookup: {
        type: 'object',
        properties: { bookingCode: { type: 'string' }, note: { type: 'string' } },
        required: ['bookingCode'],
      },
      seat: { type: 'object', properties: { row: { type: 'integer', minimum: 1 } } },
      cabin: { type: 'string', enum: ['economy', 'business'] },
    },
    required: ['lookup', 'cabin'],
  };

  it('are every string or number parameter at any depth, required or not, enums aside', () => {
    expect(slotsOf(schema).map((s) => [s.path.join('.'), s.required, s.numeric ?? false])).toEqual([
      ['lookup.bookingCode', true, false],
      ['lookup.note', false, false],
      ['seat.row', false, true],
    ]);
  });

  it('take a value by path, deep inside the object they belong to', () => {
    const args = argumentsFor(schema, opts, { [pathKey(['lookup', 'bookingCode'])]: 'TRV-1' });
    expect(args).toMatchObject({ lookup: { bookingCode: 'TRV-1' }, cabin: 'economy' });
  });

  it('name a reference whatever the case convention', () => {
    for (const name of ['workspace_id', 'bookingCode', 'sessionToken', 'apiKey', 'caseNumber'])
      expect(isReferenceName(name), name).toBe(true);
    for (const name of ['label', 'subject', 'title', 'notes'])
      expect(isReferenceName(name)).toBe(false);
  });
});

describe('answers to a question', () => {
  it('pick the choice that reads "yes", over the first one and over a default', () => {
    const yes = { canary: 'c', boolean: true };
    expect(valueFor({ type: 'string', enum: ['cancel', 'Proceed'], default: 'cancel' }, yes)).toBe(
      'Proceed',
    );
    const titled = {
      type: 'string',
      oneOf: [
        { const: 'no', title: 'Stop' },
        { const: 'yes', title: 'Go ahead' },
      ],
    };
    expect(valueFor(titled, yes)).toBe('yes');
    // Building arguments (not answering), the first choice stands.
    expect(
      valueFor({ type: 'string', enum: ['cancel', 'proceed'] }, { ...yes, boolean: false }),
    ).toBe('cancel');
  });
});
