/**
 * The call plan's rules, one shape each (issue #33): evidence read in the safe direction, words
 * read as words, the unknown not called, and the plan built once from the target's lists.
 */
import { describe, expect, it } from 'vitest';
import { buildCallPlan, unlistedAllowed } from '../../src/probe/plan/call-plan.js';
import { classifyReadable, classifyTool } from '../../src/probe/plan/classify.js';
import type { ProtocolInfo } from '../../src/probe/model/wire.js';
import type { ToolInfo } from '../../src/probe/model/tools.js';

const obj = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  type: 'object',
  properties,
  ...extra,
});
const tool = (name: string, description?: string, extra: Partial<ToolInfo> = {}): ToolInfo => ({
  name,
  ...(description === undefined ? {} : { description }),
  inputSchema: obj({}),
  ...extra,
});
const classOf = (t: ToolInfo): string => classifyTool(t).class;

describe('safe tools the probes need are called', () => {
  it('never reads a value a schema offers as a verb', () => {
    const pharmacy = tool('get_prescription', 'Show a prescription.', {
      inputSchema: obj({ delivery: { type: 'string', enum: ['Mail order', 'Pick up'] } }),
    });
    const http = tool('describe_endpoint', 'Describe an endpoint.', {
      inputSchema: obj({ method: { type: 'string', enum: ['POST', 'DELETE'], default: 'POST' } }),
    });
    const topics = tool('list_articles', 'List articles.', {
      inputSchema: obj({ topic: { type: 'string', examples: ['pay-equity'] } }),
    });
    for (const t of [pharmacy, http, topics]) expect(classOf(t), t.name).toBe('read');
  });

  it('reads a noun as a noun: inside a glued word, after a determiner, in a Japanese compound', () => {
    expect(classOf(tool('create_changelog', 'Start a changelog for a version.'))).toBe('create');
    expect(classOf(tool('get_invoice', 'Show an invoice and its charges.'))).toBe('read');
    expect(classOf(tool('transport_search', '移動手段を検索します。'))).toBe('read');
    expect(
      classOf(
        tool('room_comments', 'Lists the comments of a room.', {
          annotations: { readOnlyHint: true },
        }),
      ),
    ).toBe('read');
  });

  it('reads Hindi words whole, with their vowel signs, and the verb where Hindi puts it: last', () => {
    expect(classOf(tool('खाता_देखें'))).toBe('read');
    expect(classOf(tool('खाता_हटाएं'))).toBe('destroy');
    expect(classOf(tool('ऑर्डर_स्थिति', 'ऑर्डर की स्थिति दिखाता है।'))).toBe('read');
    expect(classOf(tool('उत्पाद', 'उत्पाद खोजता है।'))).toBe('read');
    expect(classOf(tool('उत्पाद', 'सूची दिखाता और फ़ाइलें हटाता है।'))).toBe('destroy');
    // A noun and करना (do) make one verb: the noun says the act.
    expect(classOf(tool('खाता', 'खाते का विवरण प्राप्त करता है।'))).toBe('read');
    const cancels = tool('सदस्यता', 'ग्राहक की सदस्यता रद्द करता है।', {
      annotations: { readOnlyHint: true },
    });
    expect(classOf(cancels)).toBe('destroy');
  });

  it('reads a verb of two words where a verb stands (Vietnamese), and a verb joined to "and"', () => {
    expect(classOf(tool('san_pham', 'Tìm kiếm sản phẩm.'))).toBe('read');
    expect(classOf(tool('san_pham', 'Tìm kiếm và xóa sản phẩm.'))).toBe('destroy');
    expect(classOf(tool('הזמנות', 'מציג הזמנות ומוחק אותן.'))).not.toMatch(/read|create/);
    expect(classOf(tool('الطلبات', 'يعرض الطلبات ويحذفها.'))).not.toMatch(/read|create/);
  });

  it('reads a path beside a repository as a file of that repository, for a reader only', () => {
    const repo = { owner: { type: 'string' }, repo: { type: 'string' }, path: { type: 'string' } };
    expect(classOf(tool('get_file_contents', 'Get a file.', { inputSchema: obj(repo) }))).toBe(
      'read',
    );
    const content = { ...repo, content: { type: 'string' } };
    const create = obj(content, { required: ['path'] });
    expect(classOf(tool('create_file', 'Create a file.', { inputSchema: create }))).toBe('outside');
    const folder = obj(
      { project: { type: 'string' }, path: { type: 'string' } },
      { required: ['path'] },
    );
    expect(classOf(tool('get_file', 'Get a file.', { inputSchema: folder }))).toBe('outside');
    const local = obj({ path: { type: 'string' } }, { required: ['path'] });
    expect(classOf(tool('read_file', 'Read a file.', { inputSchema: local }))).toBe('outside');
  });

  it('reads an adjective after a copula as an adjective, and a product code as an identifier', () => {
    expect(classOf(tool('waiting_jobs', 'List waiting jobs (the list may be empty).'))).toBe(
      'read',
    );
    expect(classOf(tool('waiting_jobs', 'List waiting jobs; the list will be emptied.'))).toBe(
      'destroy',
    );
    const code = (name: string) => ({
      inputSchema: obj({ [name]: { type: 'string' } }, { required: [name] }),
    });
    expect(classOf(tool('商品検索', '商品を検索します。', code('商品コード')))).toBe('read');
    expect(classOf(tool('商品検索', '商品を検索します。', code('コード')))).toBe('outside');
  });

  it('reads a noun a verb can be before what it reports, but not a verb that is rarely a noun', () => {
    for (const n of ['order_status', 'orderstatus', 'run_history', 'archive_info'])
      expect(classOf(tool(n)), n).toBe('read');
    for (const n of ['update_status', 'setstatus', 'approve_report', 'submit_report'])
      expect(classOf(tool(n)), n).not.toMatch(/read|create/);
    expect(classOf(tool('detaliiComanda'))).toBe('read');
    expect(classOf(tool('detalii_sterge'))).toBe('destroy');
  });

  it('calls a read-only, closed-world preview whose URL is a placeholder, and a URL typed number', () => {
    const preview = tool('preview_delivery', 'Preview a webhook delivery.', {
      inputSchema: obj({ hook: obj({ url: { type: 'string', format: 'uri' } }) }),
      annotations: { readOnlyHint: true, openWorldHint: false },
    });
    expect(classOf(preview)).toBe('read');
    const numeric = tool('get_page_count', 'Returns the page count.', {
      inputSchema: obj({ url: { type: 'number' } }),
    });
    expect(classOf(numeric)).toBe('read');
  });

  it('counts plan_ as a creator, and an elicitation as asking, not sending', () => {
    expect(classOf(tool('plan_trip', 'Plan a trip. Returns its tripId.'))).toBe('create');
    expect(
      classOf(
        tool('choose_scheme', 'Asks which scheme to use: sends an elicitation request.', {
          annotations: { destructiveHint: false },
        }),
      ),
    ).toBe('read');
  });
});

describe('reach by mechanism: compounds, hints the words explain, verb-last names, new objects', () => {
  it('reads a stem at the head of a longer word as the verb only before an ending', () => {
    expect(classOf(tool('verzendkosten_berekenen', 'Berekent de verzendkosten.'))).toBe('read');
    expect(classOf(tool('zahlungsarten_auflisten'))).toBe('read');
    for (const harm of ['factuur_verzenden', 'rechnung_versendet', 'bestellung_stornieren'])
      expect(['read', 'create'], harm).not.toContain(classOf(tool(`${harm}`)));
    expect(classOf(tool('get_and_cancelling', undefined))).toBe('destroy');
    expect(classOf(tool('list_then_löschungen', undefined))).toBe('destroy');
  });

  it('lets readOnlyHint count when a description in a language it reads explains the name', () => {
    const honest = (name: string, description: string | undefined, hints = {}): ToolInfo =>
      tool(name, description, { annotations: { readOnlyHint: true, ...hints } });
    const comments = classifyTool(
      honest('room_comments', 'Comments left in a room, newest first.'),
    );
    expect(comments).toEqual({
      class: 'read',
      evidence: [
        'declares readOnlyHint: true; its description names what it returns and no word of it acts',
      ],
    });
    const glued = tool('sequentialthinking', 'A tool for reflective problem-solving.', {
      annotations: { readOnlyHint: true },
      title: 'Sequential Thinking',
    });
    expect(classOf(glued)).toBe('read');
    for (const claim of [
      honest('room_comments', 'Comments left in a room.', { openWorldHint: true }),
      honest('room_comments', 'Comments left in a room.', { destructiveHint: true }),
      honest('idojaras', undefined),
      honest('futa_rekodi', 'Futa rekodi zote za mteja.'),
      // The clause that names it must be the readable one, not a later one.
      honest('futarekodi', 'Futa rekodi zote. Records of the customer, in a list.'),
      honest('bump_priority', 'Bumps the ticket priority one level.'),
      honest('tandai_comments', 'Comments left in a room, newest first.'),
      tool('room_comments', 'Comments left in a room, newest first.'),
    ])
      expect(['read', 'create'], claim.name).not.toContain(classOf(claim));
  });

  it('reads a short verb last where a verb-last language puts it', () => {
    expect(classOf(tool('urun_ara'))).toBe('read');
    expect(classOf(tool('siparis_bul'))).toBe('read');
    expect(classOf(tool('kanal_tim'))).toBe('unknown');
  });

  it('reads a storing verb given a new object as create, and any other as before', () => {
    expect(classOf(tool('save_snippet', 'Save a text snippet.'))).toBe('create');
    expect(classOf(tool('spara_anteckning', 'Sparar en ny anteckning.'))).toBe('create');
    expect(classOf(tool('notiz_speichern', 'Speichert eine neue Notiz.'))).toBe('create');
    expect(classOf(tool('save_profile', 'Save the profile.'))).toBe('unknown');
    expect(classOf(tool('store_setting', 'Stores a value, replacing the existing one.'))).toBe(
      'unknown',
    );
    expect(classOf(tool('spara_profil', 'Sparar profilen.'))).toBe('write');
    expect(classOf(tool('file_ticket', 'File a ticket.'))).toBe('unknown');
    const toFile = tool('save_report', 'Save a report.', {
      inputSchema: obj({ filename: { type: 'string' } }, { required: ['filename'] }),
    });
    expect(classOf(toFile)).toBe('outside');
  });
});

describe('side-effecting tools are not called', () => {
  it.each([
    ['check_out_cart', 'Check out a cart: places the order.'],
    ['run_payroll', 'Runs this month’s payroll.'],
    ['trigger_workflow', 'Trigger a workflow.'],
    ['approve_request', undefined],
    ['escalate_incident', undefined],
    ['page_oncall', undefined],
    ['settle_invoice', undefined],
    ['launch_campaign', undefined],
    ['upload_artifact', undefined],
    ['upgrade_plan', 'Upgrades the plan; the saved card is charged.'],
    ['видалити_всі_записи', 'Видаляє всі записи.'],
    ['skicka_faktura', 'Skickar fakturan till kunden.'],
  ])('%s is not read or create', (name, description) => {
    expect(['read', 'create']).not.toContain(classOf(tool(name, description)));
  });

  it('reads a look-alike letter as the verb it imitates, whatever the annotations say', () => {
    const t = tool('d\u0435lete_backups', 'Tidy the backups.', {
      annotations: { readOnlyHint: true },
    });
    expect(classifyTool(t)).toMatchObject({ class: 'destroy' });
  });

  it('takes a hint alone for a claim: a false readOnlyHint on an unknown verb is not called', () => {
    // Latvian, a language the lists do not know: "pay an invoice".
    const t = tool('apmaksat_rekinu', 'Apmaksā rēķinu.', {
      annotations: { readOnlyHint: true },
    });
    expect(classifyTool(t)).toMatchObject({ class: 'unknown' });
    expect(classifyTool(t).evidence[0]).toContain(
      'it declares readOnlyHint: true, a claim no word of it agrees with',
    );
  });

  it('lets any sign of harm win: destructiveHint, an open world, a command slot', () => {
    expect(classOf(tool('get_x', 'Get x.', { annotations: { destructiveHint: true } }))).toBe(
      'destroy',
    );
    expect(classOf(tool('create_x', 'Create x.', { annotations: { openWorldHint: true } }))).toBe(
      'outside',
    );
    const ref = tool('get_status', 'Get a status.', {
      inputSchema: obj(
        { task: { $ref: '#/$defs/task' } },
        {
          required: ['task'],
          $defs: { task: obj({ command: { type: 'string' } }, { required: ['command'] }) },
        },
      ),
    });
    expect(classifyTool(ref)).toMatchObject({ class: 'outside' });
    expect(classifyTool(ref).evidence[0]).toContain('"task.command"');
  });

  it('makes a created object that reaches people outside', () => {
    expect(classOf(tool('create_issue', 'Create a new issue in a repository.'))).toBe('outside');
    expect(classOf(tool('draft_email', 'Draft an email. Nothing is sent.'))).toBe('create');
  });
});

describe('the plan', () => {
  const protocol = {
    era: 'modern',
    discover: true,
    tools: [tool('open_cart', 'Open a cart.'), tool('charge_card', 'Charge a card.')],
    prompts: [{ name: 'summarise_week', arguments: [] }],
    resources: [],
    resourceTemplates: ['notes://{id}'],
    deviations: [],
  } as unknown as ProtocolInfo;

  it('records every tool, prompt and template with a class, evidence and who calls it', () => {
    const plan = buildCallPlan(protocol, { includeDestructive: false, allowTools: [] });
    expect(plan.entries.map((e) => [e.kind, e.name, e.class, e.calledBy ?? e.reach])).toEqual([
      ['tool', 'open_cart', 'create', 'default'],
      ['tool', 'charge_card', 'destroy', '--allow-tool charge_card'],
      ['prompt', 'summarise_week', 'read', 'default'],
      ['resource-template', 'notes://{id}', 'read', 'default'],
    ]);
    for (const e of plan.entries) expect(e.evidence.length, e.name).toBeGreaterThan(0);
  });

  it('calls exactly the named tool with --allow-tool, and names a name the target lacks', () => {
    const word = { includeDestructive: false, allowTools: ['charge_card', 'chrage_card'] };
    const plan = buildCallPlan(protocol, word);
    expect(plan.entries.find((e) => e.name === 'charge_card')?.calledBy).toBe('--allow-tool');
    expect(unlistedAllowed(protocol, word)).toEqual(['chrage_card']);
  });

  it('holds back a prompt whose name says it acts, reachable only by --include-destructive', () => {
    expect(classifyReadable('delete_drafts', undefined, 'prompts/get').class).toBe('destroy');
    const plan = buildCallPlan(
      { ...protocol, prompts: [{ name: 'delete_drafts', arguments: [] }] },
      { includeDestructive: false, allowTools: [] },
    );
    expect(plan.entries.find((e) => e.kind === 'prompt')?.reach).toBe('--include-destructive');
  });
});

describe('an optional dangerous slot is never filled, so it is no sign of harm', () => {
  const screenshot = (filename: Record<string, unknown>, required: string[] = []): ToolInfo =>
    tool('browser_take_screenshot', 'Take a screenshot of the current page.', {
      inputSchema: obj({ fullPage: { type: 'boolean' }, filename }, { required }),
    });

  it('judges a tool with an optional path by its words, and says the slot stays unset', () => {
    const judged = classifyTool(screenshot({ type: 'string', description: 'File to save to.' }));
    expect(judged.class).toBe('read');
    expect(judged.evidence).toContain('optional path `filename` left unset');
  });

  it('finds an optional slot at any depth: nested, behind a $ref, in an anyOf part', () => {
    const nested = tool('list_logs', 'Lists log lines.', {
      inputSchema: obj({ export: obj({ output_path: { type: 'string' } }) }),
    });
    const viaRef = tool('search_tickets', 'Searches tickets.', {
      inputSchema: obj(
        { text: { type: 'string' }, options: { $ref: '#/$defs/o' } },
        { required: ['text', 'options'], $defs: { o: obj({ url: { type: 'string' } }) } },
      ),
    });
    for (const t of [nested, viaRef]) expect(classOf(t), t.name).toBe('read');
    // Required in the part that declares it: a harm sign.
    const anyOf = tool('get_doc', 'Gets a document.', {
      inputSchema: {
        type: 'object',
        anyOf: [obj({ path: { type: 'string' } }, { required: ['path'] })],
      },
    });
    expect(classOf(anyOf)).toBe('outside');
  });

  it('still refuses a required path, at the top or nested required at each level', () => {
    expect(classOf(screenshot({ type: 'string' }, ['filename']))).toBe('outside');
    const nested = tool('read_page', 'Returns the page text.', {
      inputSchema: obj(
        { save: obj({ output_path: { type: 'string' } }, { required: ['output_path'] }) },
        { required: ['save'] },
      ),
    });
    expect(classifyTool(nested).evidence[0]).toContain('"save.output_path"');
  });

  it('lets the words win: a tool that says it saves, posts or runs is refused, slot set or not', () => {
    const saves = tool('take_screenshot', 'Takes a screenshot and saves it to the given file.', {
      inputSchema: obj({ filename: { type: 'string' } }),
    });
    const posts = tool('build_status', 'Returns the build status and posts it to the given URL.', {
      inputSchema: obj({ url: { type: 'string', format: 'uri' } }),
    });
    const runs = tool('show_status', 'Shows the status, then runs the given shell command.', {
      inputSchema: obj({ command: { type: 'string' } }),
    });
    expect(classOf(saves)).toBe('outside');
    expect(classOf(posts)).toBe('outside');
    expect(classOf(runs)).toBe('outside');
    expect(classOf(screenshot({ type: 'string' }, []))).toBe('read');
    const destructive = screenshot({ type: 'string' });
    expect(classOf({ ...destructive, annotations: { destructiveHint: true } })).toBe('destroy');
  });
});
