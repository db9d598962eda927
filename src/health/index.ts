export { createHealth } from './health.js';
export { DRAINING_HEADER, RELEASE_HEADER, VERIFIED_HEADER, VERIFY_HEADER } from './headers.js';
export type { BackgroundCheck, Handler, Health, HealthOptions } from './health.js';
export { watchDrainMarker } from './drain-marker.js';
export type { DrainWatch, DrainWatchOptions } from './drain-marker.js';
export { startHeartbeat, markPath } from './heartbeat.js';
export type { Heartbeat, HeartbeatOptions } from './heartbeat.js';
export { gracefulShutdown } from './shutdown.js';
export type { GracefulShutdown, ShutdownOptions } from './shutdown.js';
