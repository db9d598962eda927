export { schmittTrigger, type Thresholds } from './schmitt.js';
export { parseTriggerState } from './state.js';
export type { Health, HealthStrategy, Observation, Transition, TriggerState } from './strategy.js';
