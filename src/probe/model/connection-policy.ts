/**
 * The connection policies of the HTTP channel, on their own so the scanner's vocabulary
 * (`target.ts`) can name one without importing the connection code, which imports that vocabulary.
 */

/**
 * How the channel picks connections:
 * - `fresh`: a new connection per exchange (TLS sessions are still resumed);
 * - `reuse`: one kept-alive connection, whatever happens (what `fetch` does);
 * - `adaptive`: kept alive until an answer stalls in the Nagle pattern, then fresh for the rest;
 * - `auto` (default): `fresh` for a loopback host, where a handshake is nearly free, else `adaptive`.
 */
export const CONNECTION_POLICIES = ['auto', 'fresh', 'reuse', 'adaptive'] as const;
/** One of {@link CONNECTION_POLICIES}. */
export type ConnectionPolicy = (typeof CONNECTION_POLICIES)[number];
