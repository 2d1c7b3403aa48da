/**
 * The contract of the foreign fixture family: servers written unlike the workspace twins (other
 * domains, other naming conventions, other SDK styles, one hand-rolled), each with variants that
 * carry a flaw or its fix. The scanner's tests and `npm run demo` scan every variant of every twin
 * on each transport it serves and compare the verdicts with `expected`.
 *
 * The point of the family is to keep the scanner honest: it must reach the right verdict on
 * servers whose names, shapes and conventions it was not written around.
 */
import type { Verdict } from '../../../src/probe/model/probe.js';

/** How a twin learns who is calling. The scanner must be told the same carrier to scan it. */
export type IdentityCarrier =
  /** HTTP `Authorization: Bearer <identity>`; over stdio, the default `_meta` principal key. */
  | { readonly kind: 'bearer' }
  /** HTTP: a header carries the identity verbatim (e.g. `X-Api-Key`). stdio: the `_meta` key. */
  | { readonly kind: 'header'; readonly name: string }
  /**
   * stdio: the process reads its one identity from this environment variable at start (A and B
   * are then two processes). HTTP: a bearer token.
   */
  | { readonly kind: 'env'; readonly name: string };

/** A running HTTP twin. */
export interface RunningTwin {
  /** `http://127.0.0.1:<port>/<path>` */
  readonly url: string;
  close(): Promise<void>;
}

/** One foreign twin. */
export interface ForeignTwin {
  /** kebab-case, stable: `stateguard fixture --foreign <id>`. */
  readonly id: string;
  /** One line: the real-world shape this twin stands for. */
  readonly summary: string;
  /** The variants it runs in, e.g. `['flawed', 'fixed']`. */
  readonly variants: readonly string[];
  /** The transports it serves. */
  readonly transports: readonly ('http' | 'stdio')[];
  /** How it takes the caller's identity, per transport. */
  readonly identity: {
    readonly http: IdentityCarrier;
    readonly stdio: IdentityCarrier;
  };
  /**
   * The verdict a correct scanner gives, per variant and probe id (`handle/cross-principal`,
   * `state/tamper`, `state/replay-principal`, `state/replay-request`). A probe left out is not
   * asserted for that variant.
   */
  readonly expected: Readonly<Record<string, Readonly<Record<string, Verdict>>>>;
  /**
   * The tools a proof scan is given the user's word for (`--allow-tool`): where the twin's flaw
   * lives on a tool the call plan leaves alone by default (it books, files, escalates, uploads),
   * the verdicts in {@link expected} are those of a scan that may call it.
   */
  readonly allowTools?: readonly string[];
  /** Starts the twin over HTTP on 127.0.0.1, port 0. */
  startHttp(variant: string): Promise<RunningTwin>;
  /**
   * Serves the twin on this process's stdin/stdout until stdin closes (called in the child that
   * `foreignStdioCommand` starts). Diagnostics go to stderr; `[fixture] ready` once it reads stdin.
   */
  serveStdio(variant: string): Promise<void>;
  /**
   * The command that serves `variant` over stdio, for a twin outside this family's registry (whose
   * entry point `foreignStdioCommand` does not know). Absent: `foreignStdioCommand(id, variant)`.
   */
  stdioCommand?(variant: string): { command: string; args: string[] };
}

/** `variant` as one of a twin's `variants`; a `TypeError` naming the twin otherwise. */
export function variantIn<V extends string>(
  twin: string,
  variants: readonly V[],
  variant: string,
): V {
  if (!(variants as readonly string[]).includes(variant))
    throw new TypeError(`${twin} has no variant ${JSON.stringify(variant)}`);
  return variant as V;
}
