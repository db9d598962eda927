import { OperationError } from '../../errors.js';
import type { HostOutcome } from '../types.js';
import { handshakeList } from './lists.js';
import { recover } from './recover.js';
import { runList } from './runner.js';
import { hostContext, type HostRun, type HostStep } from './step.js';

export type { HostRun } from './step.js';

/**
 * The drain handshake for one host, from lock to unlock (the list's end, run
 * whatever happened), between its pre-host and post-host hooks. Never throws:
 * failures become the outcome.
 */
export async function deployHost(run: HostRun): Promise<HostOutcome> {
  const { deps, host, rec } = run;
  const ctx = hostContext(run);
  const list = handshakeList(deps.config, run.bounds);
  const outcome = await runList<HostOutcome>(
    ctx,
    { ...list, steps: [preHostStep(run), ...list.steps] },
    {
      done: () => ({ host: host.name, result: 'deployed', steps: rec.steps, leftDrained: false }),
      failed: (error) => {
        // failed before its capacity step (a pre-host hook, its lock): its wave's read goes on without it
        run.guard?.shared?.leave(host.name);
        return recover(ctx, error);
      },
    },
  );
  // the host is done either way: a failing post-host is reported, it changes nothing on it
  await hostHook(run, 'post-host', outcome.result).catch(() => undefined);
  return outcome;
}

/** A pre-host that fails fails the host before its lock and drain (recorded by the hook's call). */
function preHostStep(run: HostRun): HostStep {
  return { name: 'pre-host', quiet: true, run: () => hostHook(run, 'pre-host') };
}

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
