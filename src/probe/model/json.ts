/** A JSON object: not null, not an array. What every reader of a hostile answer checks first. */
export const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
