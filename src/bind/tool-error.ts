/**
 * One answer for every refused handle.
 *
 * A tool that said "not yours" to a foreign handle and "expired" to a stale one would tell an attacker
 * which handles exist and whom they belong to. So every `HandleRejectedError` becomes the same tool
 * error result; the reason goes only to the operator's log hook. It is a tool error (`isError`), not a
 * JSON-RPC error, so a model can recover, for example by asking for a fresh handle.
 */
import { HandleRejectedError, type HandleRejection } from '../errors.js';
import { checkKind } from './handle.js';

/** A `CallToolResult` that reports a refused handle. */
export interface HandleToolErrorResult {
  [key: string]: unknown;
  content: [{ type: 'text'; text: string }];
  isError: true;
}

/** Options of {@link handleToolError} and {@link withHandleErrors}. */
export interface HandleToolErrorOptions {
  /** The kind of handle the tool expected; it names the handle in the fixed text. */
  kind: string;
  /** Receives the reason, for the server log. Never echo it to the client. */
  onRejected?: (reason: HandleRejection) => void;
}

/** The fixed text of the tool error for a refused handle of `kind`. */
export function handleErrorText(kind: string): string {
  return `unknown or expired ${checkKind(kind)} handle`;
}

/**
 * Turn a `HandleRejectedError` into the uniform tool error result, after passing its reason to
 * `onRejected`. Anything else is rethrown untouched: a bug must not read as a bad handle.
 *
 * @example
 * try {
 *   const data = await store.get(args.workspace, principal, 'workspace');
 *   return { content: [{ type: 'text', text: render(data) }] };
 * } catch (error) {
 *   return handleToolError(error, { kind: 'workspace', onRejected: (r) => log.warn({ r }) });
 * }
 */
export function handleToolError(
  error: unknown,
  options: HandleToolErrorOptions,
): HandleToolErrorResult {
  if (!(error instanceof HandleRejectedError)) throw error;
  const text = handleErrorText(options.kind);
  options.onRejected?.(error.reason);
  return { content: [{ type: 'text', text }], isError: true };
}

/**
 * Wrap a tool handler so a `HandleRejectedError` it throws becomes the uniform tool error result.
 *
 * @example
 * server.registerTool('read_workspace', spec, withHandleErrors({ kind: 'workspace' }, async (args, ctx) => {
 *   const data = await store.get(args.workspace, principalOf(ctx), 'workspace');
 *   return { content: [{ type: 'text', text: data.title }] };
 * }));
 */
export function withHandleErrors<A extends unknown[], R>(
  options: HandleToolErrorOptions,
  handler: (...args: A) => R | Promise<R>,
): (...args: A) => Promise<R | HandleToolErrorResult> {
  handleErrorText(options.kind); // misuse fails at registration, not on the first bad handle
  return async (...args: A) => {
    try {
      return await handler(...args);
    } catch (error) {
      return handleToolError(error, options);
    }
  };
}
