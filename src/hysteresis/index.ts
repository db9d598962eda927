export { schmittTrigger, type Thresholds } from './schmitt.js';
export type { Health, HealthStrategy, TriggerState } from './strategy.js';
