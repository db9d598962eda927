import type { Clock } from '../../clock.js';
import type { Config } from '../../config/types.js';
import { UsageError } from '../../errors.js';
import type { ArgsOf, AgentOp } from '../../protocol/ops.js';
import { readAudit } from '../audit-read.js';
import { readServiceCounts } from '../../evidence/service-counts.js';
import { listening } from '../listening.js';
import { warmHttpChecks } from '../checks/warm.js';
import { leaseCall } from './ops/lease.js';
import type { AgentIO } from './io.js';
import * as ops from './ops/basic.js';
import { lockHold, type CallHandler } from './ops/lock-hold.js';
import { lockRelease } from './ops/lock-release.js';
import { artifact, prune, releases } from './ops/releases.js';
import { stop } from './ops/stop.js';
import { exec } from './ops/exec.js';
import { logs } from './ops/logs.js';

export interface AgentEnv {
  readonly config: Config;
  readonly clock: Clock;
  readonly io: AgentIO;
  /** the agent's own file, for `hello`'s checksum */
  readonly self: string;
  /** all of stdin, for operations that take a document (publish) */
  readonly readStdin: () => Promise<string>;
}

export interface HandlerEnv extends AgentEnv {
  /** how a `lock-hold` session runs the calls it receives (server.ts) */
  readonly handle: CallHandler;
}

/** One operation's implementation, given its arguments as the table types them, checked (args.ts). */
type Handler<K extends AgentOp> = (
  args: ArgsOf<K>,
  env: HandlerEnv,
  signal?: AbortSignal,
) => Promise<unknown>;

/** Every operation of the table (protocol/ops.ts) and what runs it on the host. */
export const HANDLERS: { readonly [K in AgentOp]: Handler<K> } = {
  hello: (_, env) => ops.hello(env.self),
  status: (_, { config }) => ops.status(config),
  // exec'd, the document is stdin; in a session, the call's `files` argument
  publish: async (a, env) =>
    ops.publish(env.config, a.release, a.files ?? (await env.readStdin()), {
      io: env.io,
      clock: env.clock,
    }),
  artifact: (a, { config }) => artifact(config, a.release, a.sha256, a.file),
  'lock-hold': (a, { config, io, clock, handle }) =>
    lockHold(config, io, {
      what: a.what ?? 'rollout',
      message: a.message ?? '',
      clock,
      handle,
      defer: a.defer ?? false,
      ...(a.silenceMs === undefined ? {} : { silenceMs: a.silenceMs }),
    }),
  // the session's own words, answered by lock-hold before any handler (ops/lock-hold.ts)
  lock: () => Promise.reject(sessionOnly('lock')),
  unlock: () => Promise.reject(sessionOnly('unlock')),
  heartbeat: () => Promise.resolve({}),
  lease: (a, { config, clock }) => leaseCall(config.host, clock, a.action, a.lease),
  drain: (a, { config, clock }) =>
    ops.drain(config, clock, {
      by: a.by,
      leaseMs: a.leaseMs,
      ...(a.release ? { release: a.release } : {}),
    }),
  undrain: (_, { config }) => ops.undrain(config),
  stop: (a, { config, clock, io }, signal) =>
    stop(config, clock, io, {
      ...(a.release ? { release: a.release } : {}),
      ...(signal ? { signal } : {}),
    }),
  switch: (a, { config }) => ops.switchTo(config, a.release),
  start: (a, { config }) =>
    ops.start(config, {
      ...(a.services !== undefined && { services: a.services.split(',').filter(Boolean) }),
      ...(a.ifStopped && { ifStopped: true }),
    }),
  verify: (a, { config, clock }, signal) =>
    ops.verify(config, clock, {
      successes: a.successes ?? config.rollout.verifySuccesses,
      timeoutMs: a.timeoutMs ?? config.rollout.verifyTimeout,
      allowDraining: a.allowDraining ?? false,
      releaseOptional: a.releaseOptional ?? false,
      ...(signal ? { signal } : {}),
    }),
  warm: async (_, { config, clock }, signal) => {
    await warmHttpChecks(config, clock, signal);
    return {};
  },
  'audit-read': (a, { config }) => readAudit(config.host.root, sinceMs(a.since)),
  'lock-release': (a, { config, clock }) => lockRelease(config, clock, a.force ?? false),
  releases: (_, { config, clock }) => releases(config, clock),
  'service-counts': (_, { config }) => readServiceCounts(config.host.state),
  listening: (a) => listening(a.targets.split(',').filter((t) => t !== '')),
  prune: (a, { config, clock }) => prune(config, clock, a.keep ?? config.rollout.keepReleases),
  logs: (a, { config, io }) =>
    logs(config, io, {
      follow: a.follow ?? false,
      tail: a.tail ?? 100,
      ...(a.since === undefined ? {} : { since: a.since }),
    }),
  exec: (a, { config, clock, io }) => exec(config, clock, io, a),
};

const sessionOnly = (op: string): UsageError =>
  new UsageError(`${op} is a call inside a lock-hold session, not an operation of its own`);

function sinceMs(since: string | undefined): number | undefined {
  if (since === undefined) return undefined;
  const ms = Date.parse(since);
  if (Number.isNaN(ms)) throw new UsageError(`--since ${JSON.stringify(since)}: not a time`);
  return ms;
}
