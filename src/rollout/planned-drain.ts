import type { HostConfig } from '../config/types.js';
import type { HostAgent } from '../agent-client/host-agent.js';
import { OperationError } from '../errors.js';
import { hostActions } from './host-actions.js';
import { formatMs, StepRecorder } from './recorder.js';
import { settingsOfEach } from '../balancer/set.js';
import { awaitRotation, boundsOfBalancers, describeState } from './rotation.js';
import type { RolloutDeps } from './types.js';

export interface PlannedDrainOptions {
  /** true: drain; false: undrain */
  readonly drain: boolean;
  /** how long the drain marker holds before the watchdog reports it */
  readonly leaseMs: number;
  /** false (`--no-wait`): change the host and return, as a rollout's drain step alone */
  readonly wait: boolean;
}

export interface PlannedDrainResult {
  readonly host: string;
  readonly drained: boolean;
  /** the balancer confirmed it (and, for a drain, the overlap passed); false with --no-wait */
  readonly confirmed: boolean;
  readonly elapsedMs: number;
}

/**
 * `deploy drain HOST` / `undrain HOST`: the rollout's drain (or undrain) under
 * the host lock, then the same await-out + overlap (or await-in) with the
 * same bounds, so "drained" means what it means between a rollout's steps:
 * the balancer sends the host nothing new and what it had has finished.
 * The lock is held only while the marker changes: the wait touches nothing.
 */
export async function plannedDrain(
  deps: RolloutDeps,
  host: HostConfig,
  agent: HostAgent,
  options: PlannedDrainOptions,
): Promise<PlannedDrainResult> {
  const { clock, config, balancer, signal } = deps;
  const started = clock.now();
  const rec = new StepRecorder(host.name, '', deps.who, clock, deps.log, started);
  const actions = hostActions(deps, host, agent, '', options.leaseMs);
  const lock = await rec.step('lock', () =>
    agent.holdLock(options.drain ? 'deploy drain' : 'deploy undrain', deps.who),
  );
  try {
    await rec.step(options.drain ? 'drain' : 'undrain', () =>
      options.drain ? actions.drain() : actions.undrain(),
    );
  } finally {
    await lock.release();
  }
  const done = (confirmed: boolean): PlannedDrainResult => ({
    host: host.name,
    drained: options.drain,
    confirmed,
    elapsedMs: clock.now() - started,
  });
  if (!options.wait) return done(false);

  const bounds = boundsOfBalancers(await settingsOfEach(balancer), config.drain);
  const bound = options.drain ? bounds.awaitOut : bounds.awaitIn;
  const wait = await rec.step(
    options.drain ? 'await-out' : 'await-in',
    () =>
      awaitRotation(balancer, host.target, !options.drain, bound, bounds.interval, clock, signal),
    (w) => ({ ok: w.met, bound_ms: bound }),
  );
  if (!wait.met) {
    throw new OperationError(
      options.drain
        ? `${host.name}: target ${host.target} still ${describeState(wait.last)} ${formatMs(bound)} after the drain (the timing model's bound); the host stays drained, but the balancer has not taken it out`
        : `${host.name}: target ${host.target} still ${describeState(wait.last)} ${formatMs(bound)} after the undrain (the timing model's bound); do its services pass the balancer's health check? ('deploy verify --hosts ${host.name}')`,
    );
  }
  if (options.drain) await rec.step('overlap', () => clock.sleep(config.drain.overlap, signal));
  return done(true);
}
