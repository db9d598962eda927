import type { Clock } from '../../clock.js';
import type { Config } from '../../config/types.js';
import { AgentIdentityError, ExitCode, UsageError } from '../../errors.js';
import { checkReleaseId } from '../../release-id.js';
import * as ops from './ops/basic.js';
import { errorInfo } from './error-info.js';
import { lockHold } from './ops/lock-hold.js';
import { lockRelease } from './ops/lock-release.js';
import { stop } from './ops/stop.js';
import { readAudit } from '../audit-read.js';
import { artifact, prune, releases } from './ops/releases.js';
import type { AgentIO } from './io.js';
import type { AgentCall, AgentOp, AgentReplyLine } from './protocol.js';

export interface AgentArgs {
  readonly release?: string;
  readonly by?: string;
  readonly leaseMs?: number;
  readonly what?: string;
  readonly message?: string;
  readonly successes?: number;
  readonly timeoutMs?: number;
  readonly allowDraining?: boolean;
  readonly force?: boolean;
  /** lock-hold: start the session now, take the lock later (a `lock` call) */
  readonly defer?: boolean;
  /** the sha256 the orchestrator expects of this agent: any other refuses before doing anything */
  readonly expectAgent?: string;
  /** start: only these services (comma-separated) */
  readonly services?: string;
  /** start: only what its status says is stopped */
  readonly ifStopped?: boolean;
  /** verify: an expect_release check accepts an answer without x-release */
  readonly releaseOptional?: boolean;
  /** publish inside a session: the document (release-files.ts) that stdin carries otherwise */
  readonly files?: string;
  /** audit-read: only entries that started at or after this time (ISO 8601) */
  readonly since?: string;
  /** artifact: the sha256 of the artifact as the orchestrator read it */
  readonly sha256?: string;
  /** artifact: the uploaded file to install (a path the agent handed out) */
  readonly file?: string;
  /** prune: releases kept besides current and previous */
  readonly keep?: number;
}

export interface AgentEnv {
  readonly config: Config;
  readonly clock: Clock;
  readonly io: AgentIO;
  /** the agent's own file, for `hello`'s checksum */
  readonly self: string;
  /** all of stdin, for operations that take a document (publish) */
  readonly readStdin: () => Promise<string>;
}

const noStdin = (): Promise<string> => Promise.resolve('');

function need<T>(value: T | undefined, flag: string): T {
  if (value === undefined) throw new UsageError(`missing ${flag}`);
  return value;
}

async function dispatch(
  op: AgentOp,
  args: AgentArgs,
  env: AgentEnv,
  signal?: AbortSignal,
): Promise<unknown> {
  const { config, clock } = env;
  // the release names a directory under host.root: `../../x` must not reach the disk
  if (args.release !== undefined) checkReleaseId(args.release);
  switch (op) {
    case 'hello':
      return ops.hello(env.self);
    case 'status':
      return ops.status(config);
    case 'lock-hold':
      return lockHold(config, env.io, {
        what: args.what ?? 'rollout',
        message: args.message ?? '',
        clock,
        // stdin carries the session's lines: a call's document comes in its args
        handle: (call, signal) => handleCall(call, { ...env, readStdin: noStdin }, signal),
        defer: args.defer ?? false,
      });
    case 'drain':
      return ops.drain(config, clock, {
        by: need(args.by, '--by'),
        leaseMs: need(args.leaseMs, '--lease-ms'),
        ...(args.release ? { release: args.release } : {}),
      });
    case 'undrain':
      return ops.undrain(config);
    case 'publish':
      // exec'd: the document is stdin; in a session, a call's `files` argument
      return ops.publish(
        config,
        need(args.release, '--release'),
        args.files ?? (await env.readStdin()),
        { io: env.io, clock },
      );
    case 'switch':
      return ops.switchTo(config, need(args.release, '--release'));
    case 'start':
      return ops.start(config, {
        ...(args.services !== undefined && { services: args.services.split(',').filter(Boolean) }),
        ...(args.ifStopped && { ifStopped: true }),
      });
    case 'stop':
      return stop(config, clock, env.io, {
        ...(args.release ? { release: args.release } : {}),
        ...(signal ? { signal } : {}),
      });
    case 'verify':
      return ops.verify(config, clock, {
        successes: args.successes ?? config.rollout.verifySuccesses,
        timeoutMs: args.timeoutMs ?? config.rollout.verifyTimeout,
        allowDraining: args.allowDraining ?? false,
        releaseOptional: args.releaseOptional ?? false,
        ...(signal ? { signal } : {}),
      });
    case 'lock-release':
      return lockRelease(config, clock, args.force ?? false);
    case 'audit-read':
      return readAudit(config.host.root, sinceMs(args.since));
    case 'artifact':
      return artifact(
        config,
        need(args.release, '--release'),
        need(args.sha256, '--sha256'),
        args.file,
      );
    case 'releases':
      return releases(config, clock);
    case 'prune':
      return prune(config, clock, args.keep ?? config.rollout.keepReleases);
    case 'audit':
      throw new UsageError('audit lines go through lock-hold');
  }
}

function sinceMs(since: string | undefined): number | undefined {
  if (since === undefined) return undefined;
  const ms = Date.parse(since);
  if (Number.isNaN(ms)) throw new UsageError(`--since ${JSON.stringify(since)}: not a time`);
  return ms;
}

const SESSION_OPS: readonly AgentOp[] = [
  'publish',
  'artifact',
  'drain',
  'undrain',
  'switch',
  'start',
  'stop',
  'verify',
  'status',
];

/** One operation inside a holding session, answered as a reply line. */
async function handleCall(
  call: AgentCall,
  env: AgentEnv,
  signal: AbortSignal,
): Promise<AgentReplyLine> {
  try {
    if (!SESSION_OPS.includes(call.op))
      throw new UsageError(`${call.op} cannot run inside a lock session`);
    const data = await dispatch(call.op, call.args, env, signal);
    return { type: 'reply', id: call.id, ok: true, data: data ?? null };
  } catch (error) {
    return { type: 'reply', id: call.id, ok: false, error: errorInfo(error) };
  }
}

/**
 * Run one agent operation and answer with exactly one result line. Returns the
 * process exit code; never throws, because the orchestrator reads the result
 * line, not our stderr.
 */
export async function serveAgentOp(op: AgentOp, args: AgentArgs, env: AgentEnv): Promise<number> {
  try {
    if (args.expectAgent !== undefined) await assertIdentity(args.expectAgent, env.self);
    const data = await dispatch(op, args, env);
    env.io.send({ type: 'result', ok: true, data: data ?? null });
    return ExitCode.ok;
  } catch (error) {
    const info = errorInfo(error);
    env.io.send({ type: 'result', ok: false, error: info });
    return info.exit;
  }
}

/**
 * The orchestrator names the agent it expects (`--expect-agent SHA256`) on
 * the first operation it sends a host, instead of a separate `hello` process:
 * an agent that is not that one refuses before it touches anything. An agent
 * older than the flag refuses it as an unknown option, which the client
 * reports the same way (client.ts).
 */
export async function assertIdentity(expected: string, self: string): Promise<void> {
  const me = await ops.hello(self);
  if (me.sha256 === expected) return;
  throw new AgentIdentityError(
    `agent ${me.version} (${me.sha256.slice(0, 12)}) differs from this deploy's`,
  );
}
