import type { HealthCheckSettings } from '../../../src/config/types.js';
import type { Invariant, TimingInput, TimingModel } from '../../../src/timing/types.js';

export const s = (n: number): number => n * 1000;

/** deploy.yml's defaults with a watchdog slow enough that every invariant holds. */
export const settings: HealthCheckSettings = {
  interval: s(5),
  timeout: s(2),
  unhealthyThreshold: 2,
  healthyThreshold: 2,
  idleTimeout: s(60),
};

export const base: TimingInput = {
  settings,
  drain: { method: 'health', answer: 503, overlap: s(15), maxRequest: s(30), stopTimeout: s(150) },
  rollout: {
    batch: { kind: 'count', count: 1 },
    minHealthy: 1,
    verifySuccesses: 2,
    verifyTimeout: s(120),
    rollback: true,
    keepReleases: 5,
    uploadConcurrency: 4,
    maxTimeBack: s(30),
    onFailure: 'stop',
    superseded: 'deploy',
    unreachable: 'fail',
    maxUnreachable: { kind: 'count', count: 1 },
    allowDowntime: false,
  },
  watchdog: {
    every: s(120),
    failuresBeforeRestart: 4,
    successesBeforeHealthy: 2,
    startPeriod: s(60),
    maxRestarts: 3,
    restartWindow: s(1800),
  },
  services: [{ name: 'gateway', keepAliveTimeout: s(65) }, { name: 'publish-worker' }],
  hosts: 3,
};

interface Overrides<S extends HealthCheckSettings> {
  /** a kind's own settings too, with `input<ItsHealthCheck>(…)` */
  readonly settings?: Partial<S>;
  readonly drain?: Partial<TimingInput['drain']>;
  readonly rollout?: Partial<TimingInput['rollout']>;
  readonly watchdog?: Partial<TimingInput['watchdog']>;
  readonly services?: TimingInput['services'];
  readonly hosts?: number;
}

export function input<S extends HealthCheckSettings = HealthCheckSettings>(
  o: Overrides<S> = {},
): TimingInput<S> {
  return {
    // every field beyond the core's is optional: the base is an S
    settings: { ...base.settings, ...o.settings } as S,
    drain: { ...base.drain, ...o.drain },
    rollout: { ...base.rollout, ...o.rollout },
    watchdog: { ...base.watchdog, ...o.watchdog },
    services: o.services ?? base.services,
    hosts: o.hosts ?? base.hosts,
  };
}

/** The one invariant with this id; fails the test if there is not exactly one. */
export function only(model: TimingModel, id: string): Invariant {
  const found = model.invariants.filter((i) => i.id === id);
  if (found.length !== 1) throw new Error(`expected one ${id}, got ${found.length}`);
  return found[0] as Invariant;
}
