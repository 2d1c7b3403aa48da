/**
 * Refusals compared as a client sees them: the JSON-RPC error (code, message, data) or a tool
 * error's content, and the HTTP status that carried it, with the presented id blanked wherever
 * the answer quotes it, so that "Task X not found" and "Task Y not found" read alike.
 */
import type { Exchange } from '../model/wire.js';

/** What one refusal shows a client, the presented id blanked: `text` to compare, `label` to show. */
export interface RefusalView {
  readonly text: string;
  readonly label: string;
}

const blank = (text: string, presented: string): string => {
  const quoted = JSON.stringify(presented).slice(1, -1);
  return quoted.length === 0 ? text : text.split(quoted).join('\u2026');
};

/** The view of one refusal of `presented`. */
export function refusalView(exchange: Exchange, presented: string): RefusalView {
  const o = exchange.outcome;
  const status = exchange.evidence.kind === 'http' ? exchange.evidence.response?.status : undefined;
  const body =
    o.kind === 'error'
      ? { code: o.code, message: o.message, data: o.data ?? null }
      : o.kind === 'result'
        ? { result: { ...o.result, _meta: undefined } }
        : { failure: o.failure };
  const text = blank(JSON.stringify({ status: status ?? null, ...body }).slice(0, 4096), presented);
  const said =
    o.kind === 'error'
      ? `error ${o.code} ${JSON.stringify(blank(o.message.slice(0, 120), presented))}`
      : o.kind;
  return { text, label: status === undefined ? said : `HTTP ${status}, ${said}` };
}

/** Whether two refusals are the same answer. */
export const sameRefusal = (a: RefusalView, b: RefusalView): boolean => a.text === b.text;
