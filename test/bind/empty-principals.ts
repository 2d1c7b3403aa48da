/**
 * Every form of a principal that names no one: a blank string, or an object whose every identifying
 * field is absent, `null`, empty or whitespace alone. Each binder must treat each of them exactly
 * as a missing principal.
 */
import type { Principal } from '../../src/index.js';

export const EMPTY_PRINCIPALS: readonly [label: string, principal: Principal][] = [
  ['an empty string', ''],
  ['a string of spaces', '   '],
  ['a string of tabs and newlines', '\t\n'],
  ['an object with no field', {}],
  ['an empty subject', { subject: '' }],
  ['an empty client id', { clientId: '' }],
  ['an empty issuer', { issuer: '' }],
  ['three empty fields', { clientId: '', issuer: '', subject: '' }],
  ['three blank fields', { clientId: ' ', issuer: '\t', subject: '\n' }],
  ['a null subject', { subject: null } as unknown as Principal],
];
