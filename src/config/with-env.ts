import { silentLog, type Log } from '../log.js';
import { applyEnvOverrides } from './env.js';
import type { Config } from './types.js';

export interface LoadOptions {
  /** HANDOFF_* overrides are read from here; defaults to process.env */
  readonly env?: NodeJS.ProcessEnv;
  /** receives the `config.env` warnings */
  readonly log?: Log;
  /**
   * Take a host config's seal (sealed.ts) instead of validating its document:
   * only for the commands setup sealed it for, `deploy watchdog` and
   * `deploy host`. Everything else validates whatever file it is given.
   */
  readonly trustSeal?: boolean;
  /** `-d NAME`: deploy.NAME.yml beside the file, merged over it (destination.ts) */
  readonly destination?: string;
}

/** HANDOFF_* overrides on top of a valid Config, then frozen: the last step of every load. */
export function withEnv(config: Config, options: LoadOptions): Config {
  return deepFreeze(
    applyEnvOverrides(config, options.env ?? process.env, options.log ?? silentLog),
  );
}

/** Freezes every object and array reachable from `value`. */
function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
