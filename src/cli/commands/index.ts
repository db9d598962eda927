import type { RegisterCommand } from './register.js';
import { registerCheck } from './register-check.js';
import { registerFleet } from './register-fleet.js';
import { registerHost } from './register-host.js';
import { registerInfra } from './register-infra.js';
import { registerInit } from './register-init.js';
import { registerLease } from './register-lease.js';
import { registerLock } from './register-lock.js';
import { registerOnHosts } from './register-on-hosts.js';
import { registerReport } from './register-report.js';
import { registerRollback } from './register-rollback.js';
import { registerRollout } from './register-rollout.js';
import { registerSchema } from './register-schema.js';
import { registerWatchdog } from './register-watchdog.js';

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
