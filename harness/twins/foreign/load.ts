/**
 * Each twin of the family's registry (`index.ts`) loaded on its own, for the child that serves one
 * over stdio (`main.ts`): importing the whole registry would load every twin and every SDK adapter
 * they use (the Node.js HTTP adapter among them, which no stdio child needs), about 15 % of such a
 * child's start. family.test.ts holds this list to the registry's.
 */
import type { ForeignTwin } from './twin.js';

/** The loader of each twin that serves stdio, by id: what it resolves to is the registry's object. */
export const TWIN_LOADERS: Readonly<Record<string, () => Promise<ForeignTwin>>> = {
  travel: async () => (await import('./travel/index.js')).travel,
  drafts: async () => (await import('./drafts.js')).drafts,
  snippets: async () => (await import('./snippets.js')).snippets,
  'recipes-prompt': async () => (await import('./recipes-prompt/index.js')).recipesPrompt,
  'late-owner': async () => (await import('./late-owner.js')).lateOwner,
  notebook: async () => (await import('./notebook.js')).notebook,
  tickets: async () => (await import('./tickets.js')).tickets,
  'ledger-raw': async () => (await import('./ledger-raw/index.js')).ledgerRaw,
  'inspector-echo': async () => (await import('./inspector-echo/index.js')).inspectorEcho,
  'event-wizard': async () => (await import('./event-wizard/index.js')).eventWizard,
  'cart-meta': async () => (await import('./missed/cart-meta.js')).cartMeta,
  segments: async () => (await import('./missed/segments.js')).segments,
  catalog: async () => (await import('./missed/catalog.js')).catalog,
  booking: async () => (await import('./missed/booking.js')).booking,
  'staging-crm': async () => (await import('./staging-crm.js')).stagingCrm,
  'doc-preview': async () => (await import('./doc-preview.js')).docPreview,
  'side-effects': async () => (await import('./side-effects.js')).sideEffects,
  'audit-view': async () => (await import('./reach/audit-view.js')).auditView,
  'order-desk': async () => (await import('./reach/order-desk.js')).orderDesk,
  'plain-words': async () => (await import('./missed/plain-words.js')).plainWords,
};

/** The twin named `id`, loaded alone; `undefined` for an id the registry does not hold. */
export async function loadTwin(id: string): Promise<ForeignTwin | undefined> {
  return Object.hasOwn(TWIN_LOADERS, id) ? TWIN_LOADERS[id]?.() : undefined;
}
