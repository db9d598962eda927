import type { Command } from 'commander';
import { ExitStatus } from '../../errors.js';
import { addConfigFlags, destinationOf, type ConfigFlags } from '../config-flag.js';
import type { RegisterCommand } from './register.js';

interface ExecFlags extends ConfigFlags {
  readonly message?: string;
  readonly wait?: string;
}

/**
 * `deploy lock exec -- CMD…`, on a host: run CMD under the host lock. Exits
 * with CMD's code, or 3 (naming the holder) when the lock is held.
 */
export const registerLock: RegisterCommand = (program: Command) => {
  const lock = program.command('lock').description('the host lock');
  for (const action of ['status', 'release'] as const) {
    const cmd = lock
      .command(action)
      .description(
        action === 'status'
          ? 'who holds the host lock on each host'
          : 'free a stuck host lock (a live holder only with --force)',
      );
    addConfigFlags(cmd)
      .option('--hosts <names>', 'only these hosts (comma separated)')
      .option('--json', 'machine-readable output ending with a result line');
    // only release can force: `lock status --force` is refused, not silently ignored
    if (action === 'release') cmd.option('--force', 'stop a live holder (SIGTERM)');
    cmd.action(async (flags: ConfigFlags & { hosts?: string; force?: boolean; json?: boolean }) => {
      const { runLockFleet } = await import('../lock/lock-command.js');
      await runLockFleet(flags, action);
    });
  }
  const exec = lock
    .command('exec')
    .description("on a host: run CMD under the host lock (for the host's own setup scripts)")
    .argument('<cmd...>', "the command and its arguments, after '--'");
  addConfigFlags(exec, 'deploy.yml or the host config setup published')
    .option('-m, --message <text>', 'shown to whoever is refused (default: the program name)')
    .option(
      '--wait <duration>',
      'keep trying this long while the lock is held (default: refuse at once)',
    )
    .action(async (cmd: string[], flags: ExecFlags) => {
      const [
        { loadConfig },
        { parseDuration },
        { execUnderLock },
        { retriesFor },
        { createOutput },
      ] = await Promise.all([
        import('../../config/load.js'),
        import('../../config/kit/duration.js'),
        import('../../host/lock-exec.js'),
        import('../../host/lock.js'),
        import('../output.js'),
      ]);
      const retries =
        flags.wait === undefined ? 0 : retriesFor(parseDuration(flags.wait, '--wait'));
      const config = await loadConfig(flags.config, {
        log: createOutput({ json: false }),
        ...destinationOf(flags),
      });
      const code = await withForwardedSignals((signal) =>
        execUnderLock(config.host.lock, cmd, {
          retries,
          signal,
          ...(flags.message === undefined ? {} : { message: flags.message }),
        }),
      );
      if (code !== 0) throw new ExitStatus(code);
    });
};

/**
 * While CMD runs, this process must outlive it: dying first would release the
 * lock under a running setup script. SIGTERM and SIGHUP are passed on; SIGINT
 * from a terminal already reaches CMD (same process group), so it is only
 * kept from killing us.
 */
async function withForwardedSignals<T>(run: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const forward = (signal: NodeJS.Signals): void => controller.abort(signal);
  const ignore = (): void => undefined;
  // stopped (Ctrl-Z), we would stop refreshing the lock: it goes stale and another takes it
  const refuseStop = (): void =>
    void process.stderr.write(
      'deploy: SIGTSTP: not stopping while holding the host lock (it would go stale under the command)\n',
    );
  process.on('SIGTERM', forward);
  process.on('SIGHUP', forward);
  process.on('SIGINT', ignore);
  process.on('SIGTSTP', refuseStop);
  try {
    return await run(controller.signal);
  } finally {
    process.off('SIGTERM', forward);
    process.off('SIGHUP', forward);
    process.off('SIGINT', ignore);
    process.off('SIGTSTP', refuseStop);
  }
}
