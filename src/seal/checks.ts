/**
 * Two checks every part of the library makes the same way: a numeric option (a lifetime, a size
 * cap, a timeout), and the comparison of two keyed tags.
 */
import { timingSafeEqual } from 'node:crypto';

/**
 * A numeric option that must be positive and finite: `fallback` when it is absent, else a
 * `RangeError` that names the option and the type it got (never the value).
 */
export function positiveOption(name: string, value: unknown, fallback: number): number {
  const v = value ?? fallback;
  // Stryker disable next-line ConditionalExpression: Number.isFinite is false for every non-number, so dropping the typeof test (there for TypeScript's narrowing) changes no answer.
  if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0) {
    throw new RangeError(`${name} must be a positive finite number, got ${typeof v}`);
  }
  return v;
}

/** Constant-time equality of two optional tags; presence must match too (fail closed on drift). */
export function sameTag(a: Buffer | undefined, b: Buffer | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  // Stryker disable next-line ConditionalExpression: both tags always have the same length here (the claims decoders take fixed-size fields, the tags and digests are computed at those sizes), so the length test never decides.
  return a.length === b.length && timingSafeEqual(a, b);
}
