import type { Config } from '../../config/types.js';
import { AgentIdentityError, ExitCode, UsageError } from '../../errors.js';
import { checkArgs, readFlags, type CallArgs, type FlagArgs } from '../../protocol/args.js';
import type { AgentCall, AgentErrorInfo, AgentReplyLine } from '../../protocol/lines.js';
import { isAgentOp, OPS, type AgentOp } from '../../protocol/ops.js';
import { errorInfo } from './error-info.js';
import { HANDLERS, type AgentEnv, type HandlerEnv } from './handlers.js';
import * as ops from './ops/basic.js';

export type { AgentEnv };

/** Any operation's arguments, as a call line carries them (checked against the table at dispatch). */
export type AgentArgs = CallArgs;

const noStdin = (): Promise<string> => Promise.resolve('');

function dispatch(op: AgentOp, args: CallArgs, env: AgentEnv, signal?: AbortSignal) {
  checkArgs(op, args);
  const full: HandlerEnv = {
    ...env,
    // stdin carries the session's lines: a call's document comes in its args
    handle: (call, signal) => handleCall(call, { ...env, readStdin: noStdin }, signal),
  };
  // the arguments were checked against the table just now: the handler's types hold
  const handler = HANDLERS[op] as (a: CallArgs, e: HandlerEnv, s?: AbortSignal) => Promise<unknown>;
  return handler(args, full, signal);
}

/** One operation inside a holding session, answered as a reply line. */
async function handleCall(
  call: AgentCall,
  env: AgentEnv,
  signal: AbortSignal,
): Promise<AgentReplyLine> {
  try {
    if (!isAgentOp(call.op) || OPS[call.op].channel === 'process')
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
export async function serveAgentOp(op: AgentOp, args: CallArgs, env: AgentEnv): Promise<number> {
  try {
    const data = await dispatch(op, args, env);
    env.io.send({ type: 'result', ok: true, data: data ?? null });
    return ExitCode.ok;
  } catch (error) {
    return refuse(env, errorInfo(error));
  }
}

function refuse(env: Pick<AgentEnv, 'io'>, info: AgentErrorInfo): number {
  env.io.send({ type: 'result', ok: false, error: info });
  return info.exit;
}

/** What `deploy host` runs with before it has read its config. */
export interface AgentHost extends Omit<AgentEnv, 'config'> {
  readonly loadConfig: () => Promise<Config>;
}

const badRequest = (message: string): AgentErrorInfo => ({
  code: 'bad-request',
  message,
  exit: ExitCode.usage,
});

/**
 * `deploy host <op> --flags…`: the agent's side of argv. The orchestrator
 * names the agent it expects (`--expect-agent SHA256`) on the first
 * operation it sends a host, instead of a separate `hello` process: an agent
 * that is not that one refuses before it reads its config or another flag.
 * An agent older than the flag refuses it as an unknown option, which the
 * client reports the same way (client.ts).
 */
export async function serveFlags(op: string, flags: FlagArgs, host: AgentHost): Promise<number> {
  const { config: _file, expectAgent, ...rest } = flags;
  try {
    if (typeof expectAgent === 'string') await assertIdentity(expectAgent, host.self);
  } catch (error) {
    return refuse(host, errorInfo(error));
  }
  // the session's own words (the table's `holder` channel) are no operation of argv
  if (!isAgentOp(op) || OPS[op].channel === 'holder')
    return refuse(host, badRequest(`unknown operation ${op}`));
  let args: CallArgs;
  try {
    args = readFlags(op, rest);
  } catch (error) {
    return refuse(host, badRequest(errorInfo(error).message));
  }
  let config: Config;
  try {
    config = await host.loadConfig();
  } catch (error) {
    return refuse(host, { ...errorInfo(error), code: 'bad-config', exit: ExitCode.usage });
  }
  return serveAgentOp(op, args, { ...host, config });
}

async function assertIdentity(expected: string, self: string): Promise<void> {
  const me = await ops.hello(self);
  if (me.sha256 === expected) return;
  throw new AgentIdentityError(
    `agent ${me.version} (${me.sha256.slice(0, 12)}) differs from this deploy's`,
  );
}
