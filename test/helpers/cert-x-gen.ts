/**
 * The cert-x-gen document as the engine reads it (seed 004's template wrote the same shape), as a
 * zod schema, and the seed template's status rule restated here, apart from the reporter's, so a
 * test compares two independent statements of it.
 */
import { join } from 'node:path';
import { z } from 'zod';
import { REPO_ROOT } from './spawn-stdio.js';

/** The template file the package ships for the engine. */
export const TEMPLATE_FILE = join(
  REPO_ROOT,
  'templates/cert-x-gen/stateguard-mcp-state-integrity.py',
);

const STATUS = z.enum(['confirmed', 'refuted', 'skipped', 'errored']);
const SEVERITY = z.enum(['critical', 'high', 'medium', 'low', 'info']);
const CWE = z.string().regex(/^CWE-\d+$/);

/** One finding. */
export const FindingSchema = z.strictObject({
  target: z.string().min(1),
  template_id: z.string().min(1),
  severity: SEVERITY,
  confidence: z.number().int().min(0).max(100),
  title: z.string().min(1),
  description: z.string().min(1),
  evidence: z.strictObject({
    request: z.string(),
    response: z.string().max(1400),
    matched_patterns: z.array(z.string()),
    data: z.record(z.string(), z.unknown()),
  }),
  cwe_ids: z.array(CWE),
  cwe: CWE.optional(),
  tags: z.array(z.string().min(1)),
  timestamp: z.iso.datetime(),
});

/** The metadata block. */
export const MetadataSchema = z.looseObject({
  id: z.string().min(1),
  name: z.string().min(1),
  severity: SEVERITY,
  description: z.string().min(1),
  tags: z.array(z.string().min(1)).min(1),
  cwe: z.array(CWE).min(1),
  references: z.array(z.url()),
  status: STATUS,
  // One line: the engine shows it as the run's reason.
  detail: z
    .string()
    .min(1)
    .regex(/^[^\n\r]*$/),
});

/** The whole document. */
export const CertXGenSchema = z.strictObject({
  findings: z.array(FindingSchema),
  metadata: MetadataSchema,
});

export type CertXGenDocument = z.infer<typeof CertXGenSchema>;

/** Parses stdout (or a rendered report) as a cert-x-gen document; throws on any departure. */
export function parseCertXGen(text: string): CertXGenDocument {
  return CertXGenSchema.parse(JSON.parse(text));
}

/**
 * Seed 004's rule: confirmed if any probe confirmed, else refuted if any refuted, else skipped.
 * (Errored belongs to a target that could not be run or reached, which no verdict list says.)
 */
export function seedStatus(verdicts: readonly string[]): 'confirmed' | 'refuted' | 'skipped' {
  if (verdicts.includes('confirmed')) return 'confirmed';
  if (verdicts.includes('refuted')) return 'refuted';
  return 'skipped';
}
