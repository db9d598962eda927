export { createHealth } from './health.js';
export type { Handler, Health, HealthOptions, StartOptions } from './health-api.js';
export type { BackgroundCheck, Outcome } from './check-runner.js';
export type { CheckView } from './check-set.js';
export type { ReadyStatus } from './verdict.js';
export type { StaleLoop } from './watchdogs.js';
export { DRAINING_HEADER, RELEASE_HEADER, VERIFIED_HEADER, VERIFY_HEADER } from './headers.js';
export { watchDrainMarker } from './drain-marker.js';
export type { DrainWatch, DrainWatchOptions } from './drain-marker.js';
export { startHeartbeat, markPath } from './heartbeat.js';
export type { Heartbeat, HeartbeatOptions } from './heartbeat.js';
export { gracefulShutdown } from './shutdown.js';
export type { GracefulShutdown, ShutdownOptions } from './shutdown.js';
export { startWorkerMarks } from './worker-marks.js';
export { resolveMarksDir, MARKS_DIR_VAR } from './marks-dir.js';
export type { MarksDirOptions } from './marks-dir.js';
export type { MarksLog, WorkerMarks, WorkerMarksOptions } from './worker-marks.js';
export { readMarks, slotMark, isSlotMark, EXPECTED_FILE } from './read-marks.js';
export type { MarksReport, ReadMarksOptions } from './read-marks.js';
export { countResponses, RESPONSES_DIR } from './response-counts.js';
export type {
  ResponseCounter,
  ResponseCounterOptions,
  ResponseCountsFile,
} from './response-counts.js';
