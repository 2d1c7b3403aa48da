import { describe, expect, it } from 'vitest';
import { TOOL_SPECS } from '../../src/fixture/tools.js';
import { callRefusal, withoutOptionalSlots } from '../../src/probe/runner/call-gate.js';
import { createMintedValues } from '../../src/probe/runner/minted-values.js';
import { isRiskyParameter, riskReason } from '../../src/probe/plan/tool-risk.js';
import type { ToolInfo } from '../../src/probe/model/tools.js';

/** A tool whose parameters are all strings the caller must give (a required slot is a harm sign). */
const tool = (name: string, description: string, params: string[] = []): ToolInfo => ({
  name,
  description,
  inputSchema: {
    type: 'object',
    properties: Object.fromEntries(params.map((p) => [p, { type: 'string' }])),
    required: params,
  },
});

describe('riskReason', () => {
  it.each([
    tool('run', 'Run a shell command on the host and return its output.', ['command']),
    tool('exec_python', 'Runs code.'),
    tool('calc', 'Evaluate an expression.', ['input']),
    tool('report', 'Returns rows.', ['sql']),
    tool('get_page', 'Returns a page.', ['url']),
    tool('notes', 'Returns notes.', ['filePath']),
    tool('hook', 'Calls back.', ['callback_url']),
    tool('read_file', 'Returns something.', ['path']),
    tool('datei_lesen', 'Liest eine Datei.', ['pfad']),
    tool('file_info', 'Returns something.', ['filename']),
    tool('konto_loeschen', 'Löscht ein Konto.', ['kontonummer']),
    tool('yoyaku_torikeshi', '予約を取り消します。', ['yoyaku_id']),
  ])('leaves %j alone', (t) => {
    expect(riskReason(t)).toBeDefined();
  });

  it('reads the role of a parameter, not the words of a tool that takes none', () => {
    // Which file a parameterless tool reads is the server's choice: no canary becomes a path.
    expect(riskReason(tool('read_file', 'Read a file from disk.'))).toBeUndefined();
    // Uploading reaches beyond the server's own store: left alone, by its verb, not a slot.
    expect(
      riskReason(tool('upload_document', 'Uploads a document.', ['title', 'markdown'])),
    ).toMatch(/^may reach beyond the server.*"upload"/);
  });

  it('clears the fixture tools that are not destructive, and an ordinary handle pair', () => {
    for (const name of [
      'open_workspace',
      'read_workspace',
      'export_workspace',
      'create_report',
    ] as const)
      expect(riskReason({ name, description: TOOL_SPECS[name].description }), name).toBeUndefined();
    expect(
      riskReason(tool('read_workspace', 'Read a workspace.', ['workspace_id'])),
    ).toBeUndefined();
    expect(riskReason(tool('echo', 'Echoes its arguments.', ['text']))).toBeUndefined();
    // "file" leading a name is a verb the lists do not know (file a ticket, file taxes): unknown,
    // and the unknown is not called; it touches no file either way (no path slot).
    expect(riskReason(tool('file_ticket', 'File a ticket.', ['summary']))).toMatch(
      /^what it does is unknown/,
    );
  });

  it('still names a destructive tool as destructive', () => {
    expect(riskReason(tool('delete_everything', 'Deletes every record.'))).toMatch(/destroy/);
  });
});

describe('isRiskyParameter', () => {
  it('matches whole names and unambiguous suffixes in any case style, and format uri', () => {
    for (const name of [
      'command',
      'cmd',
      'code',
      'script',
      'query',
      'url',
      'path',
      'shellCommand',
      'file_path',
      'targetUrl',
    ])
      expect(isRiskyParameter(name), name).toBe(true);
    expect(isRiskyParameter('target', { type: 'string', format: 'uri' })).toBe(true);
    for (const name of ['workspace_id', 'label', 'text', 'country_code', 'search_term'])
      expect(isRiskyParameter(name), name).toBe(false);
  });
});

describe('callRefusal', () => {
  const fetcher = tool('get_page', 'Returns a page.', ['url']);
  it('refuses a value the server minted in a risky parameter, even with the opt-in', () => {
    const minted = createMintedValues();
    // Minted by a call of this scan (a creating tool), so only the risky slot stands in the way.
    minted.learn(
      { result: { content: [{ type: 'text', text: '{"next":"https://internal/x"}' }] } },
      { tool: tool('create_link', 'Creates a link.'), args: {}, fresh: true },
    );
    const gate = { includeDestructive: true, minted };
    expect(callRefusal(fetcher, 'get_page', { url: 'https://internal/x' }, gate)).toMatch(
      /minted in its parameter "url" \(needs --allow-minted-in-risky\)/,
    );
    expect(
      callRefusal(
        fetcher,
        'get_page',
        { url: 'https://internal/x' },
        { ...gate, allowMintedInRisky: true },
      ),
    ).toBeUndefined();
  });

  it('never takes a canary the server echoed for a minted value', () => {
    const minted = createMintedValues();
    const gate = { includeDestructive: true, minted };
    expect(callRefusal(fetcher, 'get_page', { url: 'canary-123456' }, gate)).toBeUndefined();
    minted.learn({ echoed: 'canary-123456' });
    expect(callRefusal(fetcher, 'get_page', { url: 'canary-123456' }, gate)).toBeUndefined();
  });

  it("refuses a tool outside read and create without the user's word, and names the flag", () => {
    expect(callRefusal(fetcher, 'get_page', {}, { includeDestructive: false })).toMatch(
      /needs --allow-tool get_page/,
    );
    const named = { includeDestructive: false, allowTools: new Set(['get_page']) };
    expect(callRefusal(fetcher, 'get_page', {}, named)).toBeUndefined();
    expect(callRefusal(fetcher, 'get_page', {}, { includeDestructive: true })).toBeUndefined();
  });

  it('never hands a tool that acts a value its own schema offers (a real channel)', () => {
    const minted = createMintedValues();
    const poster: ToolInfo = {
      name: 'post_to_channel',
      inputSchema: {
        type: 'object',
        properties: {
          channel: { type: 'string', enum: ['team-payments', 'team-release'] },
          text: { type: 'string' },
        },
      },
    };
    const gate = { includeDestructive: true, minted };
    expect(
      callRefusal(poster, 'post_to_channel', { channel: 'team-payments', text: 'sg-x-1' }, gate),
    ).toMatch(/"channel" would hold a value this scan did not create/);
  });

  it('gives a writing tool only values this scan created, and a destructive one never anything else', () => {
    const minted = createMintedValues();
    const lister = tool('list_channels', 'Lists channels.');
    const opener = tool('openCase', 'Opens a case.', ['summary']);
    const poster = tool('add_note', 'Adds a note to a case.', ['case_id', 'text']);
    const closer = tool('close_case', 'Closes a case.', ['case_id']);
    minted.learn({ channels: [{ id: 'C0123456789' }] }, { tool: lister, args: {}, fresh: true });
    // One answer naming its value twice (text and structured content) is one handing-out.
    minted.learn(
      { text: 'Case CS-998877 is open.', structured: { caseNumber: 'CS-998877' } },
      { tool: opener, args: { summary: 'sg-canary-1' }, fresh: true },
    );
    // A writer is called only with the user's word, and even then gets only what the scan made.
    const opted = { includeDestructive: true, minted };
    expect(callRefusal(poster, 'add_note', { case_id: 'C0123456789' }, opted)).toMatch(
      /"case_id" would hold a value this scan did not create/,
    );
    expect(
      callRefusal(poster, 'add_note', { case_id: 'CS-998877', text: 'sg-x-1' }, opted),
    ).toBeUndefined();
    expect(callRefusal(closer, 'close_case', { case_id: 'C0123456789' }, opted)).toMatch(
      /only ever gets what the scan made/,
    );
    expect(callRefusal(closer, 'close_case', { case_id: 'CS-998877' }, opted)).toBeUndefined();
    // The same tool handing the value out again to a fresh call: it was there before.
    minted.learn(
      { caseNumber: 'CS-998877' },
      { tool: opener, args: { summary: 'sg-canary-2' }, fresh: true },
    );
    expect(callRefusal(closer, 'close_case', { case_id: 'CS-998877' }, opted)).toBeDefined();
  });

  it('refuses a minted value in a risky slot at any depth', () => {
    const minted = createMintedValues();
    const importer: ToolInfo = {
      name: 'import_data',
      inputSchema: {
        type: 'object',
        properties: { source: { type: 'object', properties: { url: { type: 'string' } } } },
      },
    };
    minted.learn({ next: 'https://internal.example/x' });
    expect(
      callRefusal(
        importer,
        'import_data',
        { source: { url: 'https://internal.example/x' } },
        {
          includeDestructive: true,
          minted,
        },
      ),
    ).toMatch(/"source.url" \(needs --allow-minted-in-risky\)/);
  });
});

describe('withoutOptionalSlots: the call gate never fills an optional dangerous slot', () => {
  const snapshot: ToolInfo = {
    name: 'browser_snapshot',
    description: 'Capture a snapshot of the current page.',
    inputSchema: {
      type: 'object',
      properties: {
        target: { type: 'string' },
        filename: { type: 'string' },
        pages: {
          type: 'array',
          items: {
            type: 'object',
            properties: { url: { type: 'string' }, title: { type: 'string' } },
          },
        },
        out: { $ref: '#/$defs/out' },
        source: { type: 'string', format: 'uri' },
      },
      required: ['target', 'source'],
      $defs: { out: { type: 'object', properties: { output_path: { type: 'string' } } } },
    },
  };

  it('strips an optional path, URL or nested path at any depth, and keeps everything else', () => {
    const args = {
      target: 'e1',
      filename: 'canary.txt',
      pages: [{ url: 'https://x.example', title: 't' }, { title: 'u' }],
      out: { output_path: '/tmp/x' },
      source: 'https://placeholder.invalid',
    };
    const { args: sent, stripped } = withoutOptionalSlots(snapshot, args);
    expect(sent).toEqual({
      target: 'e1',
      pages: [{ title: 't' }, { title: 'u' }],
      out: {},
      source: 'https://placeholder.invalid',
    });
    expect([...stripped].sort()).toEqual(['filename', 'out.output_path', 'pages.url']);
    // The caller's arguments are not changed.
    expect(args.filename).toBe('canary.txt');
  });

  it('leaves the arguments as they are when no optional dangerous slot is set', () => {
    const args = { target: 'e1', source: 'https://placeholder.invalid' };
    expect(withoutOptionalSlots(snapshot, args)).toEqual({ args, stripped: [] });
    expect(withoutOptionalSlots(undefined, { filename: 'x' }).stripped).toEqual([]);
  });
});
