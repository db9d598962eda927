export { timingBaseFromConfig, timingModel, timingInputFromConfig } from './model.js';
export { formatDuration } from './duration.js';
export { renderInvariants, renderTimeline } from './render.js';
export type { Invariant, KindInvariants, TimingInput, TimingModel } from './types.js';
export {
  awaitInWait,
  awaitOutWait,
  modelsPerBalancer,
  slowestBounds,
  slowestModel,
  fleetTiming,
  type FleetTiming,
  type BalancerModel,
  type NamedSettings,
} from './per-balancer.js';
