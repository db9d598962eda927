import { createHostExec, type HostExec } from '../exec.js';
import { CommandRuntime } from './command.js';
import { ComposeRuntime } from './compose.js';
import type { Runtime, RuntimeSettings } from './runtime.js';

/** The runtime deploy.yml asks for, bound to `release` (normally the one `current` points at). */
export function createRuntime(
  settings: RuntimeSettings,
  release: string,
  exec: HostExec = createHostExec(),
): Runtime {
  return settings.runtime.kind === 'compose'
    ? new ComposeRuntime(settings, release, exec)
    : new CommandRuntime(settings, release, exec);
}
