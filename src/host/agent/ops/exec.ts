import type { Clock } from '../../../clock.js';
import type { Config } from '../../../config/types.js';
import { BlockedError, OperationError, UsageError } from '../../../errors.js';
import type { CommandExit } from '../../../protocol/results.js';
import { appendAudit } from '../../audit.js';
import { createHostExec } from '../../exec.js';
import { releaseDir } from '../../layout.js';
import { readLockStatus } from '../../lock.js';
import { readLiveRelease } from '../../releases.js';
import { readReleaseVars } from '../../runtime/common.js';
import { runtimeSettings } from '../../runtime/runtime.js';
import type { AgentIO } from '../io.js';
import { outputRelay, untilStdinEnds } from './command-output.js';

export interface ExecArgs {
  /** the command's words as a JSON array: never a shell string */
  readonly argv: string;
  readonly who: string;
  /** why it runs while another holds the host lock */
  readonly force?: string;
}

export function parseArgv(json: string): string[] {
  let words: unknown;
  try {
    words = JSON.parse(json);
  } catch {
    words = undefined;
  }
  if (!Array.isArray(words) || words.length === 0 || !words.every((w) => typeof w === 'string'))
    throw new UsageError('exec: --argv must be a JSON array of the command and its arguments');
  return words;
}

async function assertLockFree(config: Config, clock: Clock, force?: string): Promise<void> {
  const lock = await readLockStatus(config.host.lock, clock);
  if (!lock.locked || force !== undefined) return;
  const h = lock.holder;
  const who = h
    ? `${h.what} (pid ${h.pid}) since ${h.since}${h.message ? `: ${h.message}` : ''}`
    : 'an unknown holder';
  throw new BlockedError(
    `the host lock is held by ${who}; wait for it, or pass --force REASON to run the command anyway`,
  );
}

/**
 * `deploy exec`: the command as `ssh.user` (the agent's own user) in the live
 * release's directory, with its `.env` and RELEASE; its output relayed masked,
 * an audit line before and after.
 */
export async function exec(
  config: Config,
  clock: Clock,
  io: AgentIO,
  args: ExecArgs,
): Promise<CommandExit> {
  const argv = parseArgv(args.argv);
  await assertLockFree(config, clock, args.force);
  const release = await readLiveRelease(config.host.root);
  if (release === null)
    throw new OperationError('no release is live on this host: nowhere to run it');
  const vars = await readReleaseVars(runtimeSettings(config), release);
  const forced = args.force === undefined ? '' : ` (past the host lock: ${args.force})`;
  const audit = (result: string, durationMs: number, code?: number) =>
    appendAudit(config.host.root, {
      release,
      step: 'exec',
      start: new Date(clock.now() - durationMs).toISOString(),
      duration_ms: durationMs,
      result,
      who: args.who,
      detail: `${JSON.stringify(argv)}${forced}${code === undefined ? '' : `: exit ${code}`}`,
    });
  await audit('started', 0);
  const started = clock.now();
  const stop = untilStdinEnds(io);
  try {
    const r = await createHostExec()(argv, {
      cwd: releaseDir(config.host.root, release),
      env: { ...vars, RELEASE: release },
      onLine: outputRelay(io),
      capture: false,
      signal: stop.signal,
    });
    await audit(r.code === 0 ? 'ok' : 'failed', clock.now() - started, r.code);
    return { release, code: r.code };
  } finally {
    stop.done();
  }
}
