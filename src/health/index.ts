export { createHealth, DRAINING_HEADER } from './health.js';
export type { BackgroundCheck, Handler, Health, HealthOptions } from './health.js';
export { watchDrainMarker } from './drain-marker.js';
export type { DrainWatch, DrainWatchOptions } from './drain-marker.js';
export { startHeartbeat, markPath } from './heartbeat.js';
export type { Heartbeat, HeartbeatOptions } from './heartbeat.js';
export { gracefulShutdown } from './shutdown.js';
export type { GracefulShutdown, ShutdownOptions } from './shutdown.js';
