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

function steps(input: TimingInput): Step[] {
  const { settings, drain, rollout } = input;
  return [
    { id: 'drain', duration: 0, basis: 'one command: write the drain marker (or deregister)' },
    { id: 'await-out', duration: awaitOutBound(settings, drain), basis: awaitOutBasis(input) },
    { id: 'overlap', duration: drain.overlap, basis: 'drain.overlap' },
    { id: 'stop', duration: drain.stopTimeout, basis: 'drain.stop_timeout' },
    { id: 'start-verify', duration: rollout.verifyTimeout, basis: 'rollout.verify_timeout' },
    { id: 'await-in', duration: awaitInBound(settings), basis: awaitInBasis(input) },
    { id: 'confirm', duration: rollout.verifyTimeout, basis: 'rollout.verify_timeout' },
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
