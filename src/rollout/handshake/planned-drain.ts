import type { HostAgent } from '../../agent-client/host-agent.js';
import type { HostConfig } from '../../config/types.js';
import { formatMs } from '../../timing/duration.js';
import { StepRecorder } from '../recorder.js';
import { settingsOfEach } from '../../balancer/each-settings.js';
import { boundsOfBalancers, describeState } from '../rotation.js';
import { stepBounds, type StepBounds } from '../../timing/step-bounds.js';
import type { RolloutDeps } from '../types.js';
import {
  awaitStep,
  drainStep,
  listEnd,
  lockStep,
  overlapStep,
  undrainStep,
  unlockStep,
} from './drain-steps.js';
import { failOpenOfEach } from '../preflight.js';
import { capacityStep } from './capacity-step.js';
import { runList } from './runner.js';
import { hostContext, type HostList, type HostStep } from './step.js';

export interface PlannedDrainOptions {
  /** true: drain; false: undrain */
  readonly drain: boolean;
  /** how long the drain marker holds before the watchdog reports it */
  readonly leaseMs: number;
  /** false (`--no-wait`): change the host and return, as a rollout's drain step alone */
  readonly wait: boolean;
  /** a drain the capacity guard refuses goes ahead, said and audited (`--force`) */
  readonly force?: boolean;
}

export interface PlannedDrainResult {
  readonly host: string;
  readonly drained: boolean;
  /** the balancer confirmed it (and, for a drain, the overlap passed); false with --no-wait */
  readonly confirmed: boolean;
  readonly elapsedMs: number;
}

/**
 * The first part of a rollout's handshake (lock, capacity, drain, await-out,
 * overlap) or its last (lock, undrain, await-in), with the same bounds, so
 * "drained" means what it means between a rollout's steps: the balancer sends
 * the host nothing new and what it had has finished. A drain is guarded as a
 * rollout's host is (capacity-step.ts), unless forced. The lock is held only
 * while the marker changes, and its steps go to the host's audit: the wait
 * touches nothing. Its end (listEnd, quiet as the unlock in the middle) releases
 * the lock only when a step before that unlock failed. Pure.
 */
function plannedList(
  options: PlannedDrainOptions,
  bounds: StepBounds | undefined,
  who: string,
): HostList {
  return { steps: plannedSteps(options, bounds, who), end: listEnd({ quiet: true }) };
}

function plannedSteps(
  options: PlannedDrainOptions,
  bounds: StepBounds | undefined,
  who: string,
): HostStep[] {
  const change = [
    lockStep(options.drain ? 'deploy drain' : 'deploy undrain', () => who),
    ...(options.drain
      ? [capacityStep({ force: options.force ?? false }), drainStep()]
      : [undrainStep()]),
    unlockStep({ quiet: true }),
  ];
  if (!bounds) return change;
  const wait = options.drain
    ? awaitStep(
        'out',
        bounds['await-out'],
        ({ run }, w, bound) =>
          `${run.host.name}: target ${run.host.target} still ${describeState(w.last)} ${formatMs(bound)} after the drain (the timing model's bound); the host stays drained, but the balancer has not taken it out`,
      )
    : awaitStep(
        'in',
        bounds['await-in'],
        ({ run }, w, bound) =>
          `${run.host.name}: target ${run.host.target} still ${describeState(w.last)} ${formatMs(bound)} after the undrain (the timing model's bound); do its services pass the balancer's health check? ('deploy verify --hosts ${run.host.name}')`,
      );
  return [...change, wait, ...(options.drain ? [overlapStep(bounds.overlap)] : [])];
}

/** `deploy drain HOST` / `undrain HOST`, through the same runner as a rollout. */
export async function plannedDrain(
  deps: RolloutDeps,
  host: HostConfig,
  agent: HostAgent,
  options: PlannedDrainOptions,
): Promise<PlannedDrainResult> {
  const { clock, config, balancer } = deps;
  const started = clock.now();
  const bounds = options.wait
    ? boundsOfBalancers(await settingsOfEach(balancer), config.drain)
    : undefined;
  const failOpen = options.drain ? await failOpenOfEach(deps) : new Map();
  const ctx = hostContext({
    deps,
    host,
    agent,
    release: '',
    rollback: false,
    bounds: bounds ?? { awaitOut: 0, awaitIn: 0, interval: 0 },
    // no release is deployed: the audit's release column says so
    rec: new StepRecorder(host.name, '-', deps.who, clock, deps.log, started),
    leaseMs: options.leaseMs,
    liveBefore: null,
    guard: { wave: [host], failOpen },
  });
  const bound = bounds && stepBounds(config, bounds);
  await runList(ctx, plannedList(options, bound, deps.who), {
    done: () => undefined,
  });
  return {
    host: host.name,
    drained: options.drain,
    confirmed: bounds !== undefined,
    elapsedMs: clock.now() - started,
  };
}
