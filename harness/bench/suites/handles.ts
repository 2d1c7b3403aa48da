/**
 * Suite "handles": one mint plus one open of a principal-bound handle per operation, against one seal
 * plus one open of a small `requestState` by the same library (the same envelope, so the ratio shows
 * what the handle's own claims cost), and a store-backed handle read from memory.
 */
import { randomBytes } from 'node:crypto';
import {
  createHandleBinder,
  createHandleStore,
  createMemoryHandleBackend,
  createStateSealer,
  type StateBinding,
} from '../../../src/index.js';
import { compare, formatCount, formatRatio, type BenchSuite, type Budget } from '../harness.js';

/** A handle carries less than a sealed state and no request digest: it should cost no more. */
const HANDLE_TARGET = 1;
const LENGTH_TARGET = 140;

const principal = {
  clientId: 'bench-client',
  issuer: 'https://issuer.example',
  subject: 'user-42',
};
const binding: StateBinding = {
  principal,
  method: 'tools/call',
  name: 'open_workspace',
  args: { workspace: 'w' },
};
const state = { d: 'abcdefgh' }; // 16 bytes of JSON, the sealer's small case

/** The handles suite. */
export const handlesSuite: BenchSuite = {
  name: 'handles',
  summary: 'handle mint + open vs requestState seal + open (same key, same envelope)',
  async run(budget: Budget) {
    const keys = randomBytes(32);
    const binder = createHandleBinder({ keys, audience: 'bench-notes' });
    const sealer = createStateSealer({ keys, audience: 'bench-notes' });
    const store = createHandleStore<{ title: string }>({
      binder,
      backend: createMemoryHandleBackend({ maxEntries: 1 }),
    });
    const stored = await store.create(principal, 'workspace', { title: 'Q3' });
    const handle = binder.mint(principal, 'workspace');
    // Prove each contender really round-trips before timing it.
    if (binder.open(handle, principal, 'workspace').kind !== 'workspace') throw new Error('handle');
    if ((await store.get(stored, principal, 'workspace')).title !== 'Q3') throw new Error('store');

    const [h, s, st] = await compare(
      [
        {
          label: 'handle mint + open',
          op: () => binder.open(binder.mint(principal, 'workspace'), principal, 'workspace'),
        },
        {
          label: 'requestState seal + open',
          op: () => sealer.open(sealer.seal(state, binding), binding),
        },
        { label: 'store get (memory)', op: () => store.get(stored, principal, 'workspace') },
      ],
      budget,
    );
    if (!h || !s || !st) throw new Error('missing measurement');
    const ratio = h.nsPerOp / s.nsPerOp;
    return {
      tables: [
        {
          title: 'handles: one operation each (median of interleaved rounds)',
          columns: ['contender', 'ops/s', 'ns/op', 'vs sealer'],
          rows: [h, s, st].map((m) => [
            m.label,
            formatCount(m.opsPerSec),
            formatCount(m.nsPerOp),
            formatRatio(m.nsPerOp / s.nsPerOp),
          ]),
          notes: [
            'handle: bound to principal {clientId, issuer, subject}, kind and audience; 128-bit id.',
            'requestState: 16-byte state bound to principal, tool, arguments and audience.',
            'store get: open the handle, then read its data from the memory backend (async).',
            `handle length: ${handle.length} characters.`,
          ],
        },
      ],
      checks: [
        {
          label: 'handle mint + open / requestState seal + open',
          actual: formatRatio(ratio),
          target: `≤ ${formatRatio(HANDLE_TARGET)}`,
          met: ratio <= HANDLE_TARGET,
        },
        {
          label: 'handle length',
          actual: `${handle.length} chars`,
          target: `≤ ${LENGTH_TARGET}`,
          met: handle.length <= LENGTH_TARGET,
        },
      ],
    };
  },
};
