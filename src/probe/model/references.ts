/**
 * The specification pages the probes cite, named once: a probe's `references` name what it tests,
 * and two probes testing the same requirement cite the same page in the same words.
 */

/** A reference as a probe (and a SARIF rule) carries it. */
export interface Reference {
  readonly id: string;
  readonly url: string;
}

const MRTR = 'https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr';

/** MRTR: a `requestState` must be integrity-protected and rejected when verification fails. */
export const MRTR_INTEGRITY: Reference = { id: 'MCP MRTR: requestState integrity', url: MRTR };

/** MRTR: a `requestState` should be bound to its principal and its originating request. */
export const MRTR_BINDING: Reference = { id: 'MCP MRTR: requestState binding', url: MRTR };

/** Security best practices: handles bound to the user who minted them. */
export const HANDLE_HIJACKING: Reference = {
  id: 'MCP security best practices: state handle hijacking',
  url: 'https://modelcontextprotocol.io/docs/tutorials/security/security_best_practices#state-handle-hijacking',
};

/** Tools: stateful tools mint explicit handles. */
export const STATEFUL_TOOLS: Reference = {
  id: 'MCP tools: stateful tools',
  url: 'https://modelcontextprotocol.io/specification/2026-07-28/server/tools',
};

const TRANSPORTS = 'https://modelcontextprotocol.io/specification/2026-07-28/basic/transports';

/** Streamable HTTP: servers MUST validate `Origin` and answer an invalid one 403 (2025-11-25 too). */
export const TRANSPORT_ORIGIN: Reference = {
  id: 'MCP transports: Streamable HTTP security warning (validate Origin, 403)',
  url: `${TRANSPORTS}#security-warning`,
};

/** MRTR: single use is not implied by binding and MUST be enforced server side where it matters. */
export const MRTR_SINGLE_USE: Reference = { id: 'MCP MRTR: single use (server side)', url: MRTR };

/** MRTR: a state should carry a short expiry and be refused after it lapses. */
export const MRTR_EXPIRY: Reference = { id: 'MCP MRTR: requestState expiry', url: MRTR };

/** 2025-11-25 Streamable HTTP session management: session ids globally unique and secure. */
export const LEGACY_SESSION_MANAGEMENT: Reference = {
  id: 'MCP 2025-11-25 transports: session management (Mcp-Session-Id)',
  url: 'https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#session-management',
};

/** Security best practices: verify every request, never authenticate by session, bind the id. */
export const SESSION_HIJACKING: Reference = {
  id: 'MCP security best practices: session hijacking',
  url: 'https://modelcontextprotocol.io/specification/2025-11-25/basic/security_best_practices#session-hijacking',
};

/**
 * The Tasks extension (SEP-2663 §Security): task ids "MUST" have "sufficient entropy", and servers
 * "MUST perform authentication and authorization checks on each task-related request".
 */
export const TASKS_SECURITY: Reference = {
  id: 'MCP Tasks extension (SEP-2663): security considerations',
  url: 'https://github.com/modelcontextprotocol/modelcontextprotocol/blob/main/seps/2663-tasks-extension.md',
};
