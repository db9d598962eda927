export { timingBaseFromConfig, timingModel, timingInputFromConfig } from './model.js';
export { awaitInBound, awaitOutBound, batchSize } from './bounds.js';
export { formatDuration } from './duration.js';
export { renderInvariants, renderTimeline } from './render.js';
export type {
  Invariant,
  InvariantId,
  Phase,
  PhaseId,
  Timeline,
  TimingInput,
  TimingModel,
} from './types.js';
export {
  awaitInWait,
  awaitOutWait,
  modelsPerBalancer,
  slowestBounds,
  slowestModel,
  type BalancerModel,
  type NamedBound,
  type NamedSettings,
  type SlowestBounds,
} from './per-balancer.js';
