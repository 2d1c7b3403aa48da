/**
 * Shared steps of the `create_report` wizard, as a client drives it.
 */
import type { Client } from '@modelcontextprotocol/client';
import { expect } from 'vitest';
import { attempt, type Outcome } from '../helpers/mcp-client.js';

/** The frozen wire answer to any refused state. */
export const REFUSED = { ok: false, code: -32602, message: 'Invalid or expired requestState' };

/** An accepted elicitation answer for one wizard field. */
export function answer(field: 'dataset' | 'range', value: string): Record<string, unknown> {
  return { [`pick_${field}`]: { action: 'accept', content: { [field]: value } } };
}

/** A `create_report` call, optionally a retry. */
export function createReport(
  client: Client,
  retry: {
    requestState?: string;
    inputResponses?: Record<string, unknown>;
    _meta?: Record<string, unknown>;
  } = {},
  args: Record<string, unknown> = { title: 'Q3 review' },
): Promise<Outcome> {
  return attempt(client, 'tools/call', { name: 'create_report', arguments: args, ...retry });
}

/** The `requestState` of an input_required outcome (asserting that is what it is). */
export function stateOf(outcome: Outcome): string {
  expect(outcome.ok).toBe(true);
  const result = (outcome as { result: Record<string, unknown> }).result;
  expect(result['resultType']).toBe('input_required');
  const state = result['requestState'];
  expect(typeof state).toBe('string');
  return state as string;
}

/** The question keys an input_required outcome asks. */
export function questionsOf(outcome: Outcome): string[] {
  const result = (outcome as { result: Record<string, unknown> }).result;
  return Object.keys((result['inputRequests'] ?? {}) as Record<string, unknown>);
}

/** The text of a complete tool result. */
export function textOf(outcome: Outcome): string {
  expect(outcome.ok).toBe(true);
  const result = (outcome as { result: { content?: { text?: string }[]; resultType?: string } })
    .result;
  expect(result.resultType ?? 'complete').toBe('complete');
  return result.content?.[0]?.text ?? '';
}

/**
 * Change one character in the middle of the sealed body, and prove the decoded bytes changed (a
 * flip in the last character's padding bits would be a no-op for a lax decoder).
 */
export function tamper(token: string): string {
  const dot = token.indexOf('.');
  const body = token.slice(dot + 1);
  const i = Math.floor(body.length / 2);
  const changed = body.slice(0, i) + (body[i] === 'A' ? 'B' : 'A') + body.slice(i + 1);
  expect(Buffer.from(changed, 'base64url').equals(Buffer.from(body, 'base64url'))).toBe(false);
  return `${token.slice(0, dot + 1)}${changed}`;
}

/** Run the wizard to its end from round 1; returns the final text. */
export async function completeWizard(client: Client): Promise<string> {
  const first = await createReport(client);
  expect(questionsOf(first)).toEqual(['pick_dataset']);
  const second = await createReport(client, {
    requestState: stateOf(first),
    inputResponses: answer('dataset', 'sales'),
  });
  expect(questionsOf(second)).toEqual(['pick_range']);
  const third = await createReport(client, {
    requestState: stateOf(second),
    inputResponses: answer('range', 'Q3'),
  });
  return textOf(third);
}
