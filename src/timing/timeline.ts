import {
  awaitInBound,
  awaitOutBound,
  batchSize,
  detectionBound,
  timeBack,
  waves,
} from './bounds.js';
import { bakePlan } from './bake.js';
import { formatDuration as fmt } from './duration.js';
import { stepBounds } from './step-bounds.js';
import type { Phase, Timeline, TimingInput } from './types.js';

type Step = Omit<Phase, 'offset'>;

function awaitOutBasis(input: TimingInput): string {
  const { settings, drain } = input;
  if (drain.method === 'deregister') {
    return settings.deregistrationDelay === undefined
      ? `deregistration delay unknown: max_request ${fmt(drain.maxRequest)}`
      : `deregistration delay ${fmt(settings.deregistrationDelay)}`;
  }
  return `interval ${fmt(settings.interval)} × unhealthy_threshold ${settings.unhealthyThreshold} = ${fmt(detectionBound(settings))}`;
}

function awaitInBasis(input: TimingInput): string {
  const { settings } = input;
  const base = `interval ${fmt(settings.interval)} × healthy_threshold ${settings.healthyThreshold} = ${fmt(timeBack(settings))}`;
  return settings.slowStart ? `${base} + slow_start ${fmt(settings.slowStart)}` : base;
}

/** The handshake's phases, each lasting its step's bound (step-bounds.ts); start and verify are one. */
function steps(input: TimingInput): Step[] {
  const { settings, drain } = input;
  const bound = stepBounds(input, {
    awaitOut: awaitOutBound(settings, drain),
    awaitIn: awaitInBound(settings),
  });
  return [
    { id: 'drain', duration: 0, basis: 'one command: write the drain marker (or deregister)' },
    { id: 'await-out', duration: bound['await-out'], basis: awaitOutBasis(input) },
    { id: 'overlap', duration: bound.overlap, basis: 'drain.overlap' },
    { id: 'stop', duration: bound.stop, basis: 'drain.stop_timeout' },
    { id: 'start-verify', duration: bound.verify, basis: 'rollout.verify_timeout' },
    { id: 'await-in', duration: bound['await-in'], basis: awaitInBasis(input) },
    { id: 'confirm', duration: bound.confirm, basis: 'rollout.verify_timeout' },
  ];
}

/** The per-host drain timeline with worst-case durations, and the whole rollout's. */
export function buildTimeline(input: TimingInput): Timeline {
  const phases: Phase[] = [];
  let offset = 0;
  // the watchdog sees failures from the drain until verify passes; after that the host answers 200
  let unhealthyWindow = 0;
  for (const step of steps(input)) {
    phases.push({ ...step, offset });
    offset += step.duration;
    if (step.id === 'start-verify') unhealthyWindow = offset;
  }
  const size = batchSize(input.rollout.batch, input.hosts);
  const bakes = bakePlan(input);
  const count = input.rollout.canary ? bakes.waves : waves(input.hosts, size);
  return {
    phases,
    hostWindow: offset,
    unhealthyWindow,
    batchSize: size,
    waves: count,
    canaryHosts: bakes.canaryHosts,
    bakingMs: bakes.total,
    rolloutWorstCase: count * offset + bakes.total,
  };
}
