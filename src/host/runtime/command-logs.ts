import { UsageError } from '../../errors.js';
import { commandLogPath } from '../layout.js';
import { commandInvocation } from './command-invocation.js';
import type { LogsCommand, LogsOptions, RuntimeSettings } from './runtime.js';

/**
 * `deploy logs` with the command runtime: each service's own `logs` command
 * from deploy.yml (its logs live where the service keeps them: journald, a
 * file of its own), told what was asked through its environment; the
 * services without one, their start commands' output files (commandLogPath),
 * where a backgrounded service keeps writing: `tail`, followed by name (-F)
 * so a restart's new file is picked up.
 */
export function commandLogs(
  settings: RuntimeSettings,
  release: string,
  releaseVars: Readonly<Record<string, string>>,
  options: LogsOptions,
): LogsCommand[] {
  const own = settings.services.filter((s) => s.logs !== undefined);
  const files = settings.services.filter((s) => s.logs === undefined);
  if (options.since !== undefined && files.length > 0)
    throw new UsageError(
      `--since needs a logs command in deploy.yml (services[].logs); without one: ${files.map((s) => s.name).join(', ')}, whose logs are the start command's output; give one, or use --tail`,
    );
  const asked = {
    HANDOFF_FOLLOW: options.follow ? '1' : '0',
    HANDOFF_TAIL: String(options.tail),
    ...(options.since === undefined ? {} : { HANDOFF_SINCE: options.since }),
  };
  const commands: LogsCommand[] = own.map((s) => {
    const run = commandInvocation(settings, release, s, 'logs', releaseVars);
    return { argv: run.argv, cwd: run.cwd, env: { ...run.env, ...asked } };
  });
  if (files.length === 0) return commands;
  const tail = ['tail', '-n', String(options.tail), ...(options.follow ? ['-F'] : [])];
  const paths = files.map((s) => commandLogPath(settings.root, s.name, 'start'));
  return [...commands, { argv: [...tail, ...paths] }];
}
