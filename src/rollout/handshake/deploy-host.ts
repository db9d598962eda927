import { messageOf, OperationError } from '../../errors.js';
import type { HostOutcome } from '../types.js';
import { releaseLock } from './drain-steps.js';
import { handshakeSteps } from './lists.js';
import { recover } from './recover.js';
import { runSteps } from './runner.js';
import { hostContext, type HostContext, type HostRun } from './step.js';

export type { HostRun } from './step.js';

/**
 * The drain handshake for one host, from lock to unlock, between its
 * pre-host and post-host hooks. Never throws: failures become the outcome.
 */
export async function deployHost(run: HostRun): Promise<HostOutcome> {
  const { deps, host, rec } = run;
  const ctx = hostContext(run);
  let outcome: HostOutcome;
  try {
    await hostHook(run, 'pre-host');
    await runSteps(ctx, handshakeSteps(deps.config, run.bounds));
    outcome = { host: host.name, result: 'deployed', steps: rec.steps, leftDrained: false };
  } catch (error) {
    // failed before its capacity step (a pre-host hook, its lock): its wave's read goes on without it
    run.guard?.shared?.leave(host.name);
    outcome = await recover(ctx, error);
  } finally {
    await unlock(ctx);
  }
  // the host is done either way: a failing post-host is reported, it changes nothing on it
  await hostHook(run, 'post-host', outcome.result).catch(() => undefined);
  return outcome;
}

/** A pre-host that fails fails the host before its lock and drain. */
async function hostHook(run: HostRun, name: 'pre-host' | 'post-host', result?: string) {
  const hooks = run.deps.hooks;
  if (!hooks?.has(name)) return;
  const call = { release: run.release, host: run.host.name, ...(result ? { result } : {}) };
  const ran = await run.rec.step(
    name,
    () => hooks.run(name, name === 'pre-host' ? { ...call, signal: run.deps.signal } : call),
    (r) => ({ ok: r.ok, detail: r.detail }),
  );
  if (!ran.ok) throw new OperationError(`${run.host.name}: hook ${name} ${ran.detail}`);
}

/** The lock goes last, recorded; the audit went through its holder, so post-host is not in audit.jsonl. */
async function unlock(ctx: HostContext): Promise<void> {
  const { progress: p, run } = ctx;
  if (p.lock && !p.lockLost) {
    // what the balancer saw while the host was out: in its audit, written by the lock's holder
    const receipt = await run.receipt?.close().catch(() => undefined);
    if (receipt) run.rec.note('receipt', receipt);
    try {
      await run.rec.step('unlock', () => releaseLock(ctx));
    } catch (error) {
      run.deps.log.emit({
        level: 'error',
        event: 'unlock',
        message: `could not release the host lock cleanly: ${messageOf(error)}`,
        host: run.host.name,
      });
    }
  }
  run.rec.audit = undefined;
}
