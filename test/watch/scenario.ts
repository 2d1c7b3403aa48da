/**
 * The traffic both end-to-end tests send through the proxy to a fixture twin with the official SDK
 * client: Alice opens a workspace and Bob reads it with her handle; Alice runs the report wizard to
 * the end, sends its last round again, Bob sends it too; then Alice starts again and her client
 * edits the state before sending it back.
 */
import type { Outcome } from '../helpers/mcp-client.js';

/** Sends one `tools/call` as a principal. */
export type CallAs = (who: 'alice' | 'bob', params: Record<string, unknown>) => Promise<Outcome>;

const stateOf = (o: Outcome): string => {
  const s = o.ok ? o.result['requestState'] : undefined;
  if (typeof s !== 'string') throw new Error(`expected a requestState, got ${JSON.stringify(o)}`);
  return s;
};

/** How long the scenario waits before sending a state back late (past a 1 s lifetime). */
export const LATE_MS = 1600;

/** Flips one character in the middle of a state, keeping its alphabet. */
export function edit(state: string): string {
  const i = Math.floor(state.length / 2);
  const c = state[i] === 'A' ? 'B' : 'A';
  return state.slice(0, i) + c + state.slice(i + 1);
}

/** Runs the scenario; returns what Bob's read of Alice's handle came back with. */
export async function runScenario(call: CallAs): Promise<void> {
  const opened = await call('alice', { name: 'open_workspace', arguments: { label: 'alpha' } });
  if (!opened.ok) throw new Error('open_workspace failed');
  const body = opened.result['structuredContent'] as { workspace_id?: string } | undefined;
  const handle = body?.workspace_id;
  if (typeof handle !== 'string') throw new Error('no workspace_id');
  await call('bob', { name: 'read_workspace', arguments: { workspace_id: handle } });

  const wizard = { name: 'create_report', arguments: {} };
  const first = await call('alice', wizard);
  const second = await call('alice', {
    ...wizard,
    requestState: stateOf(first),
    inputResponses: { pick_dataset: { action: 'accept', content: { dataset: 'sales' } } },
  });
  const last = {
    ...wizard,
    requestState: stateOf(second),
    inputResponses: { pick_range: { action: 'accept', content: { range: 'q1' } } },
  };
  const done = await call('alice', last);
  if (!done.ok || done.result['isError'] === true) throw new Error('the wizard did not complete');
  await call('alice', last);
  await call('bob', last);

  // A state sent back after its lifetime: the fixtures run with `--state-ttl 1` and the proxy
  // with `--max-age 1s`.
  const late = await call('alice', wizard);
  await new Promise((r) => setTimeout(r, LATE_MS));
  await call('alice', {
    ...wizard,
    requestState: stateOf(late),
    inputResponses: { pick_dataset: { action: 'accept', content: { dataset: 'late' } } },
  });

  const again = await call('alice', wizard);
  await call('alice', {
    ...wizard,
    requestState: edit(stateOf(again)),
    inputResponses: { pick_dataset: { action: 'accept', content: { dataset: 'x' } } },
  });
}

/** What the flawed twin must show, and the fixed one must not (the client's edit shows in both). */
export const SERVER_FINDINGS = [
  'server/state-readable',
  'server/state-identity-clear',
  'server/state-cross-principal',
  'server/state-after-completion',
  'server/handle-cross-principal',
  'server/accepted-after-max-age',
];
