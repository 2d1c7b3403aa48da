/**
 * Reading task ids minted one after the other: how much of them varies, whether the next one can
 * be predicted, and whether a part of them is the clock. Pure functions over the ids; the probe
 * decides by minting the id it predicted (or not).
 */

/** Fewer varying bits than this is not "sufficient entropy" (SEP-2663): 2^64 guesses at most. */
export const MIN_ID_BITS = 64;

/** Largest step between two consecutive ids still read as a counter. */
const MAX_STEP = 1000;
/** A clock reading counts when within a day of the scan's clock. */
const CLOCK_SLACK_MS = 86_400_000;

/** Decimal runs of an id, with where they start. */
function decimalRuns(id: string): { at: number; text: string }[] {
  return [...id.matchAll(/\d+/g)].map((m) => ({ at: m.index, text: m[0] }));
}

/**
 * The next id, when the ids differ only in one decimal run that steps by the same small amount
 * each time (`task-1`, `task-2`, `task-3` → `task-4`; `exp-0100`, `exp-0107`, `exp-0114` →
 * `exp-0121`); `undefined` otherwise.
 */
export function predictNext(ids: readonly string[]): string | undefined {
  if (ids.length < 3) return undefined;
  const shapes = ids.map((id) => id.replace(/\d+/g, '#'));
  if (shapes.some((s) => s !== shapes[0])) return undefined;
  const runs = ids.map(decimalRuns);
  const count = runs[0]?.length ?? 0;
  for (let r = 0; r < count; r++) {
    const values = runs.map((rs) => rs[r]?.text ?? '');
    const others = runs.map((rs) =>
      rs
        .filter((_, i) => i !== r)
        .map((x) => x.text)
        .join(','),
    );
    if (others.some((o) => o !== others[0])) continue;
    if (values.some((v) => v.length > 15)) continue;
    const numbers = values.map(Number);
    const step = (numbers[1] ?? 0) - (numbers[0] ?? 0);
    if (step === 0 || Math.abs(step) > MAX_STEP) continue;
    if (!numbers.every((n, i) => i === 0 || n - (numbers[i - 1] ?? 0) === step)) continue;
    const last = ids[ids.length - 1] as string;
    const run = runs[runs.length - 1]?.[r];
    if (run === undefined) continue;
    const next = String((numbers[numbers.length - 1] ?? 0) + step);
    // Keep a zero-padded width (`0007` → `0008`).
    const padded = run.text.startsWith('0') ? next.padStart(run.text.length, '0') : next;
    return last.slice(0, run.at) + padded + last.slice(run.at + run.text.length);
  }
  return undefined;
}

/** Parts of an id that read as the scan's clock: a decimal run of seconds or ms, a 48-bit hex ms. */
export function clockParts(id: string, nowMs: number): string[] {
  const near = (ms: number): boolean => Math.abs(ms - nowMs) <= CLOCK_SLACK_MS;
  const found: string[] = [];
  for (const { text } of decimalRuns(id)) {
    if (text.length === 13 && near(Number(text))) found.push(text);
    else if (text.length === 10 && near(Number(text) * 1000)) found.push(text);
  }
  // UUIDv7 and friends: 48 bits of Unix ms first.
  const hex = /^[0-9a-f]{8}-?[0-9a-f]{4}/i.exec(id)?.[0].replace('-', '');
  if (hex !== undefined && near(parseInt(hex, 16))) found.push(hex);
  return found;
}

/**
 * How many bits vary across `ids`: the characters between their common prefix and suffix that do
 * not agree in every id, each worth the alphabet their varying characters are drawn from, the
 * clock parts left out (a clock is guessable). An estimate from a few samples, on the low side
 * only by chance (a random position equal in every sample).
 */
export function varyingBits(ids: readonly string[], nowMs: number): number {
  if (ids.length < 2) return 0;
  const cleaned = ids.map((id) => {
    let out = id;
    for (const part of clockParts(id, nowMs)) out = out.replace(part, '');
    return out;
  });
  const first = cleaned[0] as string;
  let prefix = 0;
  while (prefix < first.length && cleaned.every((c) => c[prefix] === first[prefix])) prefix++;
  let suffix = 0;
  const fits = (c: string): boolean => c.length - suffix - 1 >= prefix;
  while (
    cleaned.every(fits) &&
    cleaned.every((c) => c[c.length - 1 - suffix] === first[first.length - 1 - suffix])
  )
    suffix++;
  const cores = cleaned.map((c) => c.slice(prefix, c.length - suffix));
  const width = Math.max(...cores.map((c) => c.length));
  let varying = 0;
  const alphabet = new Set<string>();
  for (let i = 0; i < width; i++) {
    const column = cores.map((c) => c[i] ?? '');
    if (column.every((ch) => ch === column[0])) continue;
    varying++;
    for (const ch of column) if (ch !== '') alphabet.add(ch);
  }
  return Math.round(varying * Math.log2(alphabetSize(alphabet)));
}

/** The smallest common alphabet holding `chars`: digits, hex, lower alnum, alnum, base64. */
export function alphabetSize(chars: ReadonlySet<string>): number {
  const all = [...chars].join('');
  if (/^[0-9]*$/.test(all)) return 10;
  if (/^[0-9a-f]*$/.test(all) || /^[0-9A-F]*$/.test(all)) return 16;
  if (/^[0-9a-z]*$/.test(all) || /^[0-9A-Z]*$/.test(all)) return 36;
  if (/^[0-9A-Za-z]*$/.test(all)) return 62;
  return 64;
}
