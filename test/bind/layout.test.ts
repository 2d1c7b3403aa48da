/**
 * The claims layout inside a handle. Only a holder of the key can seal a plaintext, so these tests
 * build malformed layouts with the internal envelope, as the vector tests do: a handle whose
 * authenticated bytes do not hold exactly one layout is refused as "malformed", never read as
 * something else.
 */
import { describe, expect, it } from 'vitest';
import { createHandleBinder, HANDLE_PREFIX, HandleRejectedError } from '../../src/index.js';
import { openEnvelope, sealEnvelope } from '../../src/seal/envelope.js';
import { createKeyRing } from '../../src/seal/key.js';

const KEY = 'k'.repeat(32);
const ALICE = { issuer: 'https://auth.example', subject: 'alice' };
const ring = createKeyRing(KEY, 'handle');
/** Built on first use inside a test, never while the file is collected. */
let built: ReturnType<typeof createHandleBinder> | undefined;
const binder = () =>
  (built ??= createHandleBinder({ keys: KEY, audience: 'notes', allowAnonymous: true }));

/** The authenticated plaintext of a genuine handle. */
function plaintextOf(handle: string): Buffer {
  const opened = openEnvelope(HANDLE_PREFIX, ring, handle);
  if (!opened.ok) throw new Error(`genuine handle did not open: ${opened.reason}`);
  return Buffer.from(opened.plaintext);
}

/** Seal `plaintext` as a handle under the binder's own key. */
const reseal = (plaintext: Buffer): string =>
  sealEnvelope(HANDLE_PREFIX, ring.primary, Buffer.alloc(12, 9), plaintext);

function reasonOf(handle: string, principal: typeof ALICE | undefined, kind = 'workspace'): string {
  try {
    binder().open(handle, principal, kind);
  } catch (error) {
    if (error instanceof HandleRejectedError) return error.reason;
    throw error;
  }
  return 'opened';
}

describe.each([
  ['bound to a principal', ALICE],
  ['anonymous', undefined],
])('the claims layout of a handle %s', (_label, principal) => {
  const genuine = () => plaintextOf(binder().mint(principal, 'workspace'));

  it('opens its own plaintext resealed (the crafted handles below differ only in layout)', () => {
    expect(reasonOf(reseal(genuine()), principal)).toBe('opened');
  });

  it('refuses every truncation of the layout as malformed', () => {
    const plaintext = genuine();
    for (let length = 0; length < plaintext.length; length += 1) {
      expect([length, reasonOf(reseal(plaintext.subarray(0, length)), principal)]).toEqual([
        length,
        'malformed',
      ]);
    }
  });

  it('refuses trailing bytes as malformed: a second spelling of the same claims', () => {
    expect(reasonOf(reseal(Buffer.concat([genuine(), Buffer.of(0)])), principal)).toBe('malformed');
  });

  it('refuses a flag it does not know as malformed, whatever the rest says', () => {
    for (const flag of [2, 4, 0x80]) {
      const altered = genuine();
      altered[0] = (altered[0] as number) | flag;
      expect(reasonOf(reseal(altered), principal)).toBe('malformed');
    }
  });

  it('refuses a kind length that runs past the end as malformed', () => {
    const altered = genuine();
    const kindLenAt = altered.length - 'workspace'.length - 1;
    altered[kindLenAt] = 'workspace'.length + 1;
    expect(reasonOf(reseal(altered), principal)).toBe('malformed');
  });
});

describe('the principal flag', () => {
  it('reads a principal tag exactly when the flag says so', () => {
    const bound = plaintextOf(binder().mint(ALICE, 'workspace'));
    // The same bytes without the flag: the principal tag is read as the audience tag and kind.
    const unflagged = Buffer.from(bound);
    unflagged[0] = 0;
    expect(reasonOf(reseal(unflagged), ALICE)).toBe('malformed');
    // An anonymous layout with the flag set: the audience tag and kind are read as a principal tag.
    const anonymous = plaintextOf(binder().mint(undefined, 'workspace'));
    const flagged = Buffer.from(anonymous);
    flagged[0] = 1;
    expect(reasonOf(reseal(flagged), undefined)).toBe('malformed');
  });
});

describe('missing fields', () => {
  /** An anonymous handle of kind `ws`: head[13] id[16] audience[8] kindLen[1] "ws". */
  const short = () => plaintextOf(binder().mint(undefined, 'ws'));

  it('refuses a layout without its handle id, even when the rest would parse', () => {
    const plaintext = short();
    const withoutId = Buffer.concat([plaintext.subarray(0, 13), plaintext.subarray(29)]);
    expect(reasonOf(reseal(withoutId), undefined, 'ws')).toBe('malformed');
  });

  it('refuses a layout flagged with a principal tag it does not hold, even when the rest would parse', () => {
    const flagged = short();
    flagged[0] = 1;
    expect(reasonOf(reseal(flagged), undefined, 'ws')).toBe('malformed');
  });
});
