/**
 * The size cap on the arguments a guard digests.
 *
 * Binding a state to its arguments means an RFC 8785 digest of them on every guarded request, and
 * that work is synchronous and grows with the arguments (2.7 MB of them once cost about 670 ms before
 * anything else could run). The guard therefore measures them first, with a walk that stops as soon
 * as the cap is passed, so a refusal costs no more than the cap itself.
 */

/** The default cap, in characters of JSON text: 64 KiB. */
export const DEFAULT_MAX_ARGUMENT_BYTES = 64 * 1024;

/**
 * Whether `value`, written as JSON, stays within `limit` characters. Strings and keys count their
 * length plus quotes (escapes are counted as one character, so the count never exceeds the real
 * text by more than the escapes), numbers their decimal form, and every bracket, colon and comma
 * one. An iterative walk: deep nesting cannot overflow the stack, and it stops at the limit.
 */
export function jsonSizeWithin(value: unknown, limit: number): boolean {
  let size = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === 'string') size += v.length + 2;
    else if (typeof v === 'number') size += String(v).length;
    else if (typeof v === 'boolean') size += v ? 4 : 5;
    else if (v === null || v === undefined) size += 4;
    else if (Array.isArray(v)) {
      size += 1 + Math.max(1, v.length);
      for (let i = v.length - 1; i >= 0 && size <= limit; i--) stack.push(v[i]);
    } else if (typeof v === 'object') {
      const keys = Object.keys(v);
      size += 1 + Math.max(1, keys.length);
      // Stryker disable next-line ConditionalExpression: stopping at the cap only bounds the work: the keys counted past it can only make the size larger, and the answer is already false.
      for (let i = keys.length - 1; i >= 0 && size <= limit; i--) {
        const key = keys[i] as string;
        size += key.length + 3;
        stack.push((v as Record<string, unknown>)[key]);
      }
    } else {
      // bigint, symbol, function: nothing JSON carries; the digest refuses them anyway.
      size += 1;
    }
    if (size > limit) return false;
  }
  return true;
}

/** The cap option, checked at construction. */
export function maxArgumentBytesOption(value: unknown): number {
  const limit = value ?? DEFAULT_MAX_ARGUMENT_BYTES;
  if (typeof limit !== 'number' || Number.isNaN(limit) || limit <= 0) {
    throw new RangeError(`maxArgumentBytes must be a positive number, got ${typeof limit}`);
  }
  return limit;
}
