/** The lab: N hosts in their own mount namespaces behind a real HAProxy, for e2e tests. */
export { startLab, cleanLeftovers } from './lab.js';
export type { LabOptions } from './lab.js';
export type { Lab, LabHaproxy } from './lab-api.js';
export {
  labLayout,
  frontendUrl,
  labFiles,
  defaultTimings,
  DEFAULT_WORK_DIR,
  LAB_SERVICE,
} from './layout.js';
export type {
  LabBalancer,
  LabLayout,
  LabHostPlan,
  LabRuntime,
  LabTimings,
  LayoutOptions,
} from './layout.js';
export type { LabHost } from './host.js';
export { labConfig } from './config.js';
export type { LabConfigOptions } from './config.js';
export { startLoad, formatReport, addReports } from './load.js';
export type { Load, LoadOptions, LoadReport } from './load.js';
export { inHost, nsenterArgv, sshArgv, sshClientOptions, sshExec, shellQuote } from './exec.js';
export type { ExecOptions, ExecResult } from './exec.js';
export { haproxyConfig, haproxyCommand, showStat, serverStatus } from './haproxy.js';
export type { StatRow } from './haproxy.js';
export {
  stageRelease,
  startByHand,
  startServicesDirectly,
  stopServicesDirectly,
  httpStatus,
  servicesDir,
} from './services.js';
export type { StageOptions } from './services.js';
export { pidsInNamespace, mountNamespaceOf, until } from './procs.js';
export { ensurePackages, missingPackages } from './packages.js';
export { auditLines, startWatchdogs, watchdogActions } from './watchdogs.js';
export type { Watchdogs } from './watchdogs.js';
export { composeEnv, composeFiles, composeLabProblem, LAB_IMAGE } from './compose.js';
export { ensureLabUser } from './users.js';
