/**
 * The shapes the MCP Registry sends, as zod schemas with a bound on every string and list. A
 * registry is a stranger: whatever it sends is checked here before anything reads it, and an entry
 * that does not fit is reported as "not scanned" with the first reason, never half-read.
 *
 * - `server.json` (a `ServerDetail`): `name`, `version`, `packages[]` (`registryType`,
 *   `identifier`, `version`, `transport`, `runtimeArguments`, `packageArguments`,
 *   `environmentVariables`), `remotes[]` (`type`, `url`, `headers[]`, `variables`).
 * - `GET /v0.1/servers`: `{ servers: [{ server, _meta }], metadata: { nextCursor, count } }`.
 *
 * Fields the scanner does not use (descriptions, icons, repository) are not read, so they cannot
 * fail an entry either. Unknown fields are dropped.
 */
import { z } from 'zod';
import { ENV_NAME } from '../env-name.js';

/** The longest value (argument, header, variable) read from an entry. */
export const MAX_VALUE = 4096;
/** The most items of any list inside an entry (packages, remotes, arguments, variables). */
export const MAX_ITEMS = 64;

const text = (max: number) => z.string().max(max);
const few = <T extends z.ZodType>(item: T) => z.array(item).max(MAX_ITEMS);
const variablesOf = <T extends z.ZodType>(item: T) =>
  z
    .record(z.string().regex(ENV_NAME, 'a variable name').max(128), item)
    .refine((r) => Object.keys(r).length <= MAX_ITEMS, `at most ${MAX_ITEMS} variables`);

/** One input: a value the user may have to give (`isRequired`), perhaps a secret (`isSecret`). */
const Input = z.object({
  isRequired: z.boolean().optional(),
  isSecret: z.boolean().optional(),
  value: text(MAX_VALUE).optional(),
  default: text(MAX_VALUE).optional(),
});

const InputWithVariables = Input.extend({ variables: variablesOf(Input).optional() });

/** An environment variable or a header. */
const KeyValueInput = InputWithVariables.extend({ name: z.string().min(1).max(256) });

/** A command-line argument: `positional` (by its `valueHint`) or `named` (`--flag`). */
const Argument = InputWithVariables.extend({
  type: z.enum(['positional', 'named']),
  name: text(256).optional(),
  valueHint: text(256).optional(),
  isRepeated: z.boolean().optional(),
});

/** A package's or a remote's transport. */
const Transport = z.object({
  type: z.string().min(1).max(64),
  url: text(2048).optional(),
  headers: few(KeyValueInput).optional(),
  variables: variablesOf(Input).optional(),
});

const Package = z.object({
  registryType: z.string().min(1).max(64),
  registryBaseUrl: text(2048).optional(),
  identifier: z.string().min(1).max(512),
  version: text(255).optional(),
  runtimeHint: text(64).optional(),
  transport: Transport.optional(),
  runtimeArguments: few(Argument).optional(),
  packageArguments: few(Argument).optional(),
  environmentVariables: few(KeyValueInput).optional(),
});

/** A `server.json`: the part of it the scanner reads. */
export const ServerDetail = z.object({
  name: z
    .string()
    .min(3)
    .max(200)
    .regex(/^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/, 'a reverse-DNS name with one slash'),
  version: text(255).optional(),
  packages: few(Package).optional(),
  remotes: few(Transport).optional(),
});

export type ServerDetail = z.infer<typeof ServerDetail>;
export type RegistryPackage = z.infer<typeof Package>;
export type RegistryTransport = z.infer<typeof Transport>;
export type RegistryInput = z.infer<typeof InputWithVariables>;
export type RegistryKeyValue = z.infer<typeof KeyValueInput>;
export type RegistryArgument = z.infer<typeof Argument>;

/** One page of `GET /v0.1/servers`; each entry is checked on its own (one bad entry, one report). */
export const ServerListPage = z.object({
  servers: z.array(z.unknown()).max(1000),
  metadata: z
    .object({
      nextCursor: z.string().max(4096).optional().nullable(),
      count: z.number().optional(),
    })
    .optional(),
});

/** The first problem zod found, as `where: what` (the path and zod's message, never the value). */
export function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (issue === undefined) return 'invalid';
  const path = issue.path.map(String).join('.');
  return `${path === '' ? 'the entry' : path}: ${issue.message}`.slice(0, 300);
}
