/**
 * The judgements `stateguard watch` and `stateguard check` make from traffic: one stable id each,
 * what it asks, the flaw a finding names, its severity, why it matters, and what the traffic must
 * hold for it to decide anything (without that material it is `skipped`, never a pass).
 */
import type { ProbeResult } from '../probe/model/report.js';

/** What a judgement needs to see in the traffic. */
export type Material =
  | 'state'
  | 'issued'
  | 'retried'
  | 'two-principals'
  | 'completed'
  | 'ids'
  | 'state-or-ids'
  | 'max-age';

/** Why a judgement decided nothing, by the material it lacked. */
export const MISSING: Readonly<Record<Material, string>> = {
  state: 'no requestState in the traffic',
  issued: 'no answer issued a requestState',
  retried: 'no request sent a requestState back',
  'two-principals': 'fewer than two principals in the traffic',
  completed: 'no flow with a requestState completed',
  ids: 'no handle, task id or session id handed out',
  'state-or-ids': 'no requestState or handle handed out',
  'max-age': 'no --max-age given',
};

/** One judgement. */
export interface Judgement {
  readonly id: string;
  readonly title: string;
  readonly flaw: string;
  readonly severity: ProbeResult['severity'];
  readonly rationale: string;
  readonly needs: readonly Material[];
}

const MRTR = 'MCP 2026-07-28 basic/patterns/mrtr';

export const JUDGEMENTS = [
  {
    id: 'client/state-altered',
    title: 'The client sends back requestState as issued',
    flaw: 'Client sent back a requestState other than the one issued',
    severity: 'medium',
    rationale: `A client retrying an input_required request MUST send the requestState byte for byte (${MRTR}). A retry whose state differs from the one the last answer issued for the same call shows a client that edits state.`,
    needs: ['issued', 'retried'],
  },
  {
    id: 'client/state-dropped',
    title: 'The client keeps requestState on its retry',
    flaw: 'Client retried without the requestState it was issued',
    severity: 'low',
    rationale: `A retry that answers the input requests of an input_required result without its requestState loses the server's state (${MRTR}).`,
    needs: ['issued'],
  },
  {
    id: 'client/state-invented',
    title: 'The client sends only requestState it was issued',
    flaw: 'Client sent a requestState no answer issued',
    severity: 'medium',
    rationale: `requestState is opaque to the client and comes only from the server (${MRTR}); a state no answer issued is forged or carried over from elsewhere.`,
    needs: ['retried'],
  },
  {
    id: 'client/state-parallel',
    title: 'The client uses one requestState for one request at a time',
    flaw: 'Client sent one requestState on two requests in parallel',
    severity: 'medium',
    rationale: `Each retry continues one flow; the same state on two requests in flight at once races the server's single-use checks (${MRTR}).`,
    needs: ['retried'],
  },
  {
    id: 'server/state-readable',
    title: 'Issued requestState is integrity-protected',
    flaw: 'Server issued readable requestState with no integrity tag',
    severity: 'high',
    rationale: `requestState is attacker-controlled; a server MUST integrity-protect it when it influences authorization, resources or business logic (${MRTR}). A state that decodes to JSON (as is, base64 or a JWT) with nothing that could be a MAC can be edited at will.`,
    needs: ['issued'],
  },
  {
    id: 'server/state-identity-clear',
    title: 'Issued requestState keeps identity out of the clear',
    flaw: 'Server issued requestState with identity fields in the clear',
    severity: 'medium',
    rationale: `Who a state belongs to should be bound as a keyed tag, not written in readable fields a client can read or change (${MRTR}).`,
    needs: ['issued'],
  },
  {
    id: 'server/state-cross-principal',
    title: 'One requestState is accepted for one principal only',
    flaw: 'Server accepted the same requestState from two principals',
    severity: 'high',
    rationale: `A server SHOULD bind requestState to the principal it was issued to (${MRTR}); a state accepted from a second principal lets one user continue another's flow.`,
    needs: ['state', 'two-principals'],
  },
  {
    id: 'server/state-after-completion',
    title: 'A completed flow does not accept its state again',
    flaw: 'Server accepted a requestState again after its flow completed',
    severity: 'medium',
    rationale: `Single use is not implied by the protocol and must be enforced by the server where it matters (${MRTR}); a final round accepted twice acts twice.`,
    needs: ['completed'],
  },
  {
    id: 'server/handle-cross-principal',
    title: 'A handle is accepted only from the principal it was minted for',
    flaw: "Server accepted one principal's handle from another",
    severity: 'critical',
    rationale:
      'Possession of a handle MUST NOT be treated as authentication, and handles SHOULD be bound to the authenticated user (MCP security best practices, "State Handle Hijacking").',
    needs: ['ids', 'two-principals'],
  },
  {
    id: 'server/guessable-ids',
    title: 'Handles, task ids and session ids are unguessable',
    flaw: 'Server handed out short or sequential ids',
    severity: 'high',
    rationale:
      'An id that counts up or holds fewer than 64 bits can be guessed; where possession is enough, guessing it is access (SEP-2663 "sufficient entropy").',
    needs: ['ids'],
  },
  {
    id: 'server/accepted-after-max-age',
    title: 'State and handles expire within the lifetime given',
    flaw: 'Server accepted a state or handle older than --max-age',
    severity: 'medium',
    rationale: `requestState SHOULD expire soon (${MRTR}); a state or handle accepted after the lifetime the user expects lives longer than the deployment intends.`,
    needs: ['max-age', 'state-or-ids'],
  },
] as const satisfies readonly Judgement[];

export type JudgementId = (typeof JUDGEMENTS)[number]['id'];

/** The judgement of an id. */
export function judgementOf(id: JudgementId): Judgement {
  return JUDGEMENTS.find((j) => j.id === id) as Judgement;
}

/** The judgement of an id, or undefined for an id that is not one (a probe's). */
export function findJudgement(id: string): Judgement | undefined {
  return (JUDGEMENTS as readonly Judgement[]).find((j) => j.id === id);
}
