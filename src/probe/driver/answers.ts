/**
 * Answering input requests in the shape they were asked: a spec elicitation gets an `ElicitResult`
 * built from its requested schema (accept, values of the right types); a non-standard request that
 * only names a schema gets a bare value of that type. Every yes/no question is answered yes: the
 * probes drive a flow to completion to see what the server does with the state.
 */
import { valueFor } from './schema.js';
import { isRecord } from '../model/json.js';

/** How input requests are answered: the spec's result objects, or bare values of the asked type. */
export type AnswerShape = 'spec' | 'bare';

const ANSWER_TEXT = 'stateguard-probe-answer';

/** The answers to a set of input requests, in one shape. Every yes/no question is answered yes. */
export function answerInputs(
  inputRequests: Record<string, unknown>,
  shape: AnswerShape,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const opts = { canary: ANSWER_TEXT, boolean: true };
  for (const [key, req] of Object.entries(inputRequests)) {
    const method = isRecord(req) ? req['method'] : undefined;
    const params = isRecord(req) && isRecord(req['params']) ? req['params'] : {};
    if (method === 'sampling/createMessage') {
      out[key] = {
        role: 'assistant',
        content: { type: 'text', text: ANSWER_TEXT },
        model: 'stateguard-probe',
        stopReason: 'endTurn',
      };
    } else if (method === 'roots/list') {
      out[key] = { roots: [] };
    } else if (method === 'elicitation/create' && params['mode'] === 'url') {
      out[key] = { action: 'accept' };
    } else {
      // A spec elicitation carries `params.requestedSchema`; a non-standard request names a schema
      // in `requestedSchema` or `schema`, or is a schema itself.
      const schema =
        method === 'elicitation/create'
          ? params['requestedSchema']
          : isRecord(req)
            ? (req['requestedSchema'] ?? req['schema'] ?? req)
            : undefined;
      const value = valueFor(schema, opts);
      out[key] = shape === 'spec' ? { action: 'accept', content: value } : value;
    }
  }
  return out;
}

/** The shape to try first: the spec's, when the server asked in the spec's words. */
export function preferredShape(inputRequests: Record<string, unknown>): AnswerShape {
  const values = Object.values(inputRequests);
  return values.length === 0 || values.some((r) => isRecord(r) && typeof r['method'] === 'string')
    ? 'spec'
    : 'bare';
}
