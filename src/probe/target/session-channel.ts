/**
 * The channel a session sends on: one connection (HTTP) or child process (stdio) for both
 * identities, or, when the identity travels in the child's environment, one process per identity,
 * B's started on its first use.
 */
import { withSessionIds } from '../evidence/evidence.js';
import type { IdentityName, Target } from '../model/target.js';
import { createHttpChannel } from './http.js';
import type { Channel } from './jsonrpc.js';
import type { SessionOptions } from './session-options.js';
import { createStdioChannel } from './stdio.js';

/** Whether each identity is a process of its own (stdio with an environment carrier). */
export function processPerIdentity(target: Target, options: SessionOptions): boolean {
  return target.kind === 'stdio' && options.identityEnv !== undefined;
}

/** The environment of a stdio child: the target's (or ours), with `identity`'s value when it carries one. */
function childEnv(
  target: Extract<Target, { kind: 'stdio' }>,
  options: SessionOptions,
  identity: IdentityName | undefined,
): { env?: NodeJS.ProcessEnv } {
  if (identity !== undefined && options.identityEnv !== undefined)
    return {
      env: { ...(target.env ?? process.env), [options.identityEnv]: options.identities[identity] },
    };
  return target.env === undefined ? {} : { env: target.env };
}

/**
 * A channel to `target`; `identity` only for a process of its own. Over HTTP, evidence names the
 * legacy session ids in `sessionNames` (filled as they are handed out) instead of showing them.
 */
function openChannel(
  target: Target,
  options: SessionOptions,
  sessionNames: ReadonlyMap<string, string>,
  identity?: IdentityName,
): Channel {
  return target.kind === 'http'
    ? createHttpChannel({
        url: target.url,
        redactor: withSessionIds(options.redactor, sessionNames),
        maxAnswerBytes: options.maxAnswerBytes,
        ...(target.connection ? { connection: target.connection } : {}),
        ...(target.tls ? { tls: target.tls } : {}),
      })
    : createStdioChannel({
        command: target.command,
        args: target.args,
        redactor: options.redactor,
        maxAnswerBytes: options.maxAnswerBytes,
        ...(target.cwd === undefined ? {} : { cwd: target.cwd }),
        ...childEnv(target, options, identity),
      });
}

/** One channel that sends each request on its identity's own (opened on first use). */
export function sessionChannel(
  target: Target,
  options: SessionOptions,
  sessionNames: ReadonlyMap<string, string>,
): Channel {
  const perIdentity = processPerIdentity(target, options);
  const channels: Partial<Record<IdentityName, Channel>> = {};
  const channelOf = (identity: IdentityName): Channel => {
    const key = perIdentity ? identity : 'A';
    return (channels[key] ??= openChannel(
      target,
      options,
      sessionNames,
      perIdentity ? identity : undefined,
    ));
  };
  return {
    send: (req) => channelOf(req.identity ?? 'A').send(req),
    listen: (req) => {
      const c = channelOf(req.identity ?? 'A');
      if (c.listen === undefined) throw new Error('no event stream over this transport');
      return c.listen(req);
    },
    remove: (req) => {
      const c = channelOf(req.identity ?? 'A');
      if (c.remove === undefined) throw new Error('no DELETE over this transport');
      return c.remove(req);
    },
    notify: (message, req) => channelOf(req.identity ?? 'A').notify(message, req),
    takeStderr: () => Object.values(channels).flatMap((c) => c.takeStderr()),
    close: async () => {
      await Promise.all(Object.values(channels).map((c) => c.close()));
    },
  };
}
