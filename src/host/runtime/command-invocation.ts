import type { ServiceConfig } from '../../config/types.js';
import { ConfigError, UsageError } from '../../errors.js';
import { commandLogPath, releaseDir } from '../layout.js';
import { serviceMarksEnv } from './marks-env.js';
import { drainEnv, type RuntimeSettings } from './runtime.js';

export type CommandStep = 'start' | 'stop' | 'status' | 'logs';

/** One run of a service's start/stop/status command, as data. */
export interface CommandInvocation {
  readonly argv: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  /** the command's stdout and stderr; a backgrounded daemon keeps writing here */
  readonly outputFile: string;
  /** stop only: drain.stop_timeout, after which the stop command's process group is killed */
  readonly timeoutMs?: number;
}

/**
 * The command from deploy.yml goes to `sh -c` as one argument, never glued
 * into a bigger string; the release and paths reach it through the
 * environment, so a release id is never parsed by a shell. `releaseVars` (the
 * operator's variables from the release's `.env`) come first: handoff's own
 * names cannot be overridden by them.
 */
export function commandInvocation(
  settings: RuntimeSettings,
  release: string,
  service: ServiceConfig,
  step: CommandStep,
  releaseVars: Readonly<Record<string, string>> = {},
): CommandInvocation {
  const command = service[step];
  if (command === undefined || command.trim() === '') {
    const index = settings.services.indexOf(service);
    throw new ConfigError([
      { path: `services[${index}].${step}`, message: 'required when runtime.kind is command' },
    ]);
  }
  return {
    argv: ['sh', '-c', command],
    cwd: releaseDir(settings.root, release),
    env: {
      ...releaseVars,
      RELEASE: release,
      HANDOFF_SERVICE: service.name,
      HANDOFF_STATE: settings.state,
      ...serviceMarksEnv(settings.state, service),
      ...drainEnv(settings),
    },
    outputFile: commandLogPath(settings.root, service.name, step),
    ...(step === 'stop' ? { timeoutMs: settings.stopTimeout } : {}),
  };
}

export function findService(settings: RuntimeSettings, name: string): ServiceConfig {
  const found = settings.services.find((s) => s.name === name);
  if (!found) {
    const known = settings.services.map((s) => s.name).join(', ');
    throw new UsageError(`unknown service ${name}; deploy.yml lists ${known || 'none'}`);
  }
  return found;
}
