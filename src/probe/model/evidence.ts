/** What a probe saw, as every report carries it. */
import type { IdentityName, TransportKind } from './target.js';

/**
 * What a probe saw. Built by `evidence/evidence.ts`, which redacts bearer tokens, identity secrets
 * and long sealed blobs at construction, and bounds depth and length, so reporters never see a
 * secret.
 */
export type Evidence =
  | {
      readonly kind: 'http';
      readonly label: string;
      readonly identity?: IdentityName;
      readonly request: {
        method: string;
        url: string;
        headers: Record<string, string>;
        body?: unknown;
      };
      readonly response?: { status: number; headers: Record<string, string>; body?: unknown };
      /** Every JSON-RPC message read from the body (SSE events in order, or the one JSON body). */
      readonly received?: unknown[];
      readonly error?: string;
      readonly ms: number;
    }
  | {
      readonly kind: 'jsonrpc';
      readonly label: string;
      readonly identity?: IdentityName;
      readonly transport: TransportKind;
      readonly sent: unknown;
      /** Everything read for this request: notifications and server→client requests, then the answer. */
      readonly received: unknown[];
      readonly error?: string;
      readonly ms: number;
    }
  | {
      readonly kind: 'observation';
      readonly label: string;
      readonly expected: string;
      readonly actual: string;
    }
  | { readonly kind: 'stderr'; readonly lines: string[] }
  | { readonly kind: 'note'; readonly text: string };
