/**
 * One request a probe may drive through rounds (`driver/rounds.ts`), on its own so the surface map's
 * types (`surface-map.ts`) can name it without importing the code that drives it.
 */

/**
 * One request a probe may drive through rounds: `tools/call`, `prompts/get` or `resources/read`,
 * with the params of round 1. `subject` names it in labels and reasons (`tool x`, `prompt y`).
 */
export interface Call {
  readonly method: string;
  readonly params: Record<string, unknown>;
  readonly subject: string;
}
