/**
 * Bounding of untrusted JSON. A target may answer with a megabyte of nesting or a million keys; a
 * probe that walks such a value, or a reporter that serialises it, must not blow the stack or the
 * heap. Every copy here is recursion-limited by depth, so the walk itself cannot overflow.
 */

/** Limits of one bounded copy. */
export interface BoundLimits {
  /** Deepest nesting kept; deeper values become a marker string. */
  readonly maxDepth: number;
  /** Longest string kept whole; longer ones are cut with a marker. */
  readonly maxString: number;
  /** Most array items or object keys kept per container. */
  readonly maxItems: number;
  /** Total characters of strings kept across the whole value. */
  readonly maxTotal: number;
}

/** Limits for evidence: enough for a sealed blob and a tool answer, small enough for a report. */
export const EVIDENCE_LIMITS: BoundLimits = {
  maxDepth: 24,
  maxString: 8192,
  maxItems: 100,
  maxTotal: 64 * 1024,
};

/**
 * Limits for the outcome a probe reads: depth only, so a `requestState` is echoed byte-exact while
 * no legitimate MCP answer is altered (none nests 64 deep).
 */
export const OUTCOME_LIMITS: BoundLimits = {
  maxDepth: 64,
  maxString: Number.POSITIVE_INFINITY,
  maxItems: Number.POSITIVE_INFINITY,
  maxTotal: Number.POSITIVE_INFINITY,
};

/** Marker that replaces a value nested deeper than the limit. */
export const DEPTH_MARKER = '<truncated: nested too deep>';

/**
 * A bounded deep copy of a JSON-like value, with `transform` applied to every string (keys
 * included). Non-JSON values (functions, symbols, bigints) become strings.
 */
export function boundValue(
  value: unknown,
  limits: BoundLimits = EVIDENCE_LIMITS,
  transform: (s: string) => string = (s) => s,
): unknown {
  let budget = limits.maxTotal;
  const str = (s: string): string => {
    const t = transform(s);
    if (budget <= 0) return `<truncated: ${t.length} chars>`;
    const keep = Math.min(t.length, limits.maxString, budget);
    budget -= keep;
    return keep === t.length ? t : `${t.slice(0, keep)}…<truncated: ${t.length} chars>`;
  };
  const walk = (v: unknown, depth: number): unknown => {
    if (v === null || typeof v === 'number' || typeof v === 'boolean') return v;
    if (typeof v === 'string') return str(v);
    if (v === undefined) return undefined;
    if (typeof v !== 'object') return str(String(v));
    if (depth >= limits.maxDepth) return DEPTH_MARKER;
    if (Array.isArray(v)) {
      const out: unknown[] = [];
      const n = Math.min(v.length, limits.maxItems);
      for (let i = 0; i < n; i++) out.push(walk(v[i], depth + 1));
      if (v.length > n) out.push(`<truncated: ${v.length - n} more items>`);
      return out;
    }
    const out: Record<string, unknown> = {};
    let kept = 0;
    let total = 0;
    for (const key of Object.keys(v)) {
      total++;
      if (kept >= limits.maxItems) continue;
      kept++;
      // defineProperty, not assignment: a hostile `__proto__` key must stay a plain key.
      Object.defineProperty(out, str(key), {
        value: walk((v as Record<string, unknown>)[key], depth + 1),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    if (total > kept) out['<truncated>'] = `${total - kept} more keys`;
    return out;
  };
  return walk(value, 0);
}
