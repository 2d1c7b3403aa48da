/**
 * What `stateguard scan` warns about before scanning: legal, but probably not what was meant.
 */
import { MIN_EMBEDDED_SECRET } from '../probe/evidence/evidence.js';

/**
 * Warnings about the two identities: only one given, too short, or the same. `prefix` names the
 * variables they come from (`CXG_MCP_IDENTITY_` in cert-x-gen engine mode).
 */
export function identityWarnings(
  a: string | undefined,
  b: string | undefined,
  env: NodeJS.ProcessEnv,
  prefix = 'STATEGUARD_IDENTITY_',
): string[] {
  const warnings: string[] = [];
  if ((a === undefined) !== (b === undefined)) {
    const [given, missing] = a === undefined ? ['B', 'A'] : ['A', 'B'];
    const fromEnv = env[`${prefix}${given}`] !== undefined;
    warnings.push(
      `only identity ${given} is set${fromEnv ? ` (${prefix}${given})` : ''}; ${missing} is a random one ` +
        `the server will likely refuse; set ${prefix}${missing} too`,
    );
  }
  for (const [name, v] of [
    ['A', a],
    ['B', b],
  ] as const) {
    if (v !== undefined && v.length < MIN_EMBEDDED_SECRET)
      warnings.push(
        `identity ${name} is ${v.length} character${v.length === 1 ? '' : 's'} long: too short to tell ` +
          'apart in answers (the principal controls will fail) or to redact inside text (it is ' +
          'redacted only where a whole value equals it); use a few characters at least',
      );
  }
  if (a !== undefined && a === b)
    warnings.push(
      'identities A and B are the same; differential probes cannot hold their controls',
    );
  return warnings;
}
