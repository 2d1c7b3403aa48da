/**
 * The three-round `create_report` wizard of the seed, on a guarded SDK server.
 *
 * Round 1 asks which dataset, round 2 which range, round 3 creates the report. The wizard's memory
 * rides in `requestState` as plaintext JSON the handler writes and reads; the guard seals it on the
 * way out and opens it on the way in, so the handler never sees a token and the client never sees
 * the state. Nothing is created before the last answer: the client may never come back.
 */
import { inputRequired, inputResponse, McpServer } from '@modelcontextprotocol/server';
import type { InputRequiredResult, ServerContext } from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { StateGuard } from '../../src/sdk/index.js';

/** The questions, asked in this order. */
export const REPORT_QUESTIONS = { dataset: 'Which dataset?', range: 'Which range?' } as const;
type Field = keyof typeof REPORT_QUESTIONS;
const FIELDS = Object.keys(REPORT_QUESTIONS) as Field[];

/** The datasets the example knows. */
export const DATASETS = ['sales', 'support', 'traffic'] as const;

/** Observers for tests and demos: what ran, what was created. */
export interface ReportHooks {
  /** Called each time a handler runs (never for a refused state). */
  onCall?: (name: string) => void;
  /** Called once per report created. */
  onCreate?: (report: { title: string; dataset: string; range: string }) => void;
}

/** The wizard's memory between rounds. Sealed by the guard; plaintext to the handler. */
interface WizardState {
  answers: Partial<Record<Field, string>>;
  asked?: Field;
}

function readState(ctx: ServerContext): WizardState {
  const raw = ctx.mcpReq.requestState<string>();
  // The guard opened and authenticated it: this is JSON this server wrote, not client input.
  return raw === undefined ? { answers: {} } : (JSON.parse(raw) as WizardState);
}

function ask(field: Field, answers: WizardState['answers']): InputRequiredResult {
  const state: WizardState = { answers, asked: field };
  return inputRequired({
    inputRequests: {
      [`pick_${field}`]: inputRequired.elicit({
        message: REPORT_QUESTIONS[field],
        requestedSchema: {
          type: 'object',
          properties: { [field]: { type: 'string' } },
          required: [field],
        },
      }),
    },
    requestState: JSON.stringify(state),
  });
}

const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] });

/**
 * Build the example server, protected by `guard`. A fresh one per HTTP request is fine: the guard
 * holds the keys, the server holds nothing.
 *
 * The `-32021` answer to a client without the elicitation capability comes from the SDK: it checks
 * every returned input request against the capabilities the request declared.
 */
export function createReportServer(guard: StateGuard, hooks: ReportHooks = {}): McpServer {
  const server = guard.protect(new McpServer({ name: 'reports', version: '1.0.0' }));

  server.registerTool(
    'create_report',
    {
      description: 'Create a report. Asks which dataset, then which range.',
      inputSchema: z.object({ title: z.string().max(200).optional() }),
    },
    async ({ title }, ctx) => {
      hooks.onCall?.('create_report');
      const { answers, asked } = readState(ctx);
      if (asked !== undefined) {
        // Read only the answer to the question this state says was asked.
        const response = inputResponse(ctx.mcpReq.inputResponses, `pick_${asked}`);
        if (response.kind === 'elicit' && response.action !== 'accept') {
          return text('Report cancelled.');
        }
        const value = response.kind === 'elicit' ? response.content?.[asked] : undefined;
        if (typeof value === 'string' && value.trim() !== '') answers[asked] = value.trim();
      }
      for (const field of FIELDS) {
        // A missing answer is simply asked again.
        if (answers[field] === undefined) return ask(field, answers);
      }
      const report = {
        title: title ?? 'Untitled',
        dataset: answers.dataset!,
        range: answers.range!,
      };
      // Every input is in: only now does the tool create anything.
      hooks.onCreate?.(report);
      return text(`Report "${report.title}" on ${report.dataset} for ${report.range} created.`);
    },
  );

  server.registerTool(
    'list_datasets',
    { description: 'List the datasets a report can use.' },
    async () => {
      hooks.onCall?.('list_datasets');
      return text(DATASETS.join(', '));
    },
  );

  server.registerPrompt(
    'report_brief',
    { description: 'A prompt to brief a report; asks which dataset.' },
    async (ctx) => {
      hooks.onCall?.('report_brief');
      const response = inputResponse(ctx.mcpReq.inputResponses, 'pick_dataset');
      const dataset = response.kind === 'elicit' ? response.content?.['dataset'] : undefined;
      if (typeof dataset !== 'string') return ask('dataset', {});
      return {
        messages: [
          { role: 'user', content: { type: 'text', text: `Brief a report on ${dataset}.` } },
        ],
      };
    },
  );

  server.registerResource(
    'report_formats',
    'report://formats',
    { description: 'The formats a report can take.', mimeType: 'text/plain' },
    async (uri) => {
      hooks.onCall?.('report_formats');
      return { contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'pdf, csv, html' }] };
    },
  );

  return server;
}
