import type { Command } from 'commander';
import { registerCheck } from './check.js';
import { registerFleet } from './fleet.js';
import { registerHost } from './host.js';
import { registerInfra } from './infra.js';
import { registerInit } from './init.js';
import { registerLock } from './lock.js';
import { registerRollback } from './rollback.js';
import { registerRollout } from './rollout.js';
import { registerSchema } from './schema.js';
import { registerWatchdog } from './watchdog.js';

/** Each command registers itself; its domain code is imported lazily in its action. */
export type RegisterCommand = (program: Command) => void;

export const commands: readonly RegisterCommand[] = [
  registerCheck,
  registerRollout,
  registerRollback,
  registerFleet,
  registerWatchdog,
  registerInfra,
  registerInit,
  registerSchema,
  registerLock,
  registerHost,
];
