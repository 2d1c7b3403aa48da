/**
 * What a scan is pointed at and who it speaks as: the transports, the target, its TLS settings, and
 * the two identities every differential probe uses.
 */
import type { ConnectionPolicy } from './connection-policy.js';

export const TRANSPORTS = ['http', 'stdio'] as const;
export type TransportKind = (typeof TRANSPORTS)[number];

/** What to scan. */
export type Target =
  | {
      readonly kind: 'http';
      readonly url: string;
      /** Connection reuse (`transport/http-connection.ts`); default `auto`. */
      readonly connection?: ConnectionPolicy;
      /** https: more CAs to trust (PEM), or no certificate check at all (`--insecure`). */
      readonly tls?: HttpTls;
    }
  | {
      readonly kind: 'stdio';
      readonly command: string;
      readonly args: readonly string[];
      /**
       * The child's whole environment. Absent: the scanner's own (a library caller's choice). The
       * command line never leaves it absent: `--stdio` and `--peer-stdio` get the minimal one plus
       * `--env`/`--env-file`, a server from a client configuration its own `env` over the minimal
       * one (cli/config/minimal-env.ts).
       */
      readonly env?: Readonly<Record<string, string>>;
      /** The child's working directory; absent: the scanner's. */
      readonly cwd?: string;
    };

/** TLS settings of an https target. */
export interface HttpTls {
  /** PEM certificates trusted besides the system's (`--ca <file>`). */
  readonly ca?: string;
  /** Skip certificate verification (`--insecure`); the CLI warns loudly. */
  readonly insecure?: boolean;
}

/** The two identities every differential probe uses. */
export type IdentityName = 'A' | 'B';
