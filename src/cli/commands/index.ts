import type { RegisterCommand } from './register.js';
import { registerCheck } from './check.js';
import { registerFleet } from './fleet.js';
import { registerHost } from './host.js';
import { registerInfra } from './infra.js';
import { registerInit } from './init.js';
import { registerLease } from './lease.js';
import { registerLock } from './lock.js';
import { registerOnHosts } from './on-hosts.js';
import { registerReport } from './report.js';
import { registerRollback } from './rollback.js';
import { registerRollout } from './rollout.js';
import { registerSchema } from './schema.js';
import { registerWatchdog } from './watchdog.js';

export type { RegisterCommand } from './register.js';

export const commands: readonly RegisterCommand[] = [
  registerCheck,
  registerRollout,
  registerRollback,
  registerFleet,
  registerOnHosts,
  registerWatchdog,
  registerInfra,
  registerInit,
  registerSchema,
  registerReport,
  registerLock,
  registerLease,
  registerHost,
];
