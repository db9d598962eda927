import type { Command } from 'commander';
import { UsageError } from '../../errors.js';
import type { RegisterCommand } from './index.js';

interface WatchdogFlags {
  readonly config: string;
  readonly loop?: string;
  readonly ticks?: string;
}

/**
 * `deploy watchdog`: one tick, for cron. Cheap on purpose — it loads only what
 * a tick needs (no SSH, no AWS SDK).
 */
export const registerWatchdog: RegisterCommand = (program: Command) => {
  program
    .command('watchdog')
    .description('one watchdog tick (run from cron on every host)')
    .option('-c, --config <file>', 'deploy.yml or the host config setup published', 'deploy.yml')
    .option(
      '--loop <seconds>',
      'tick every SECONDS until stopped (for the lab; cron runs one tick)',
    )
    .action(async (flags: WatchdogFlags) => {
      const loop = flags.loop === undefined ? undefined : Number(flags.loop);
      if (loop !== undefined && !(Number.isFinite(loop) && loop > 0)) {
        throw new UsageError(
          `--loop ${JSON.stringify(flags.loop)}: expected a positive number of seconds`,
        );
      }
      const ticks = flags.ticks === undefined ? 1 : Number(flags.ticks);
      if (!(Number.isSafeInteger(ticks) && ticks >= 1)) {
        throw new UsageError(`--ticks ${JSON.stringify(flags.ticks)}: expected a whole number ≥ 1`);
      }
      const [{ loadConfig }, { tick }, { systemClock }, { createOutput }] = await Promise.all([
        import('../../config/load.js'),
        import('../../watchdog/tick.js'),
        import('../../clock.js'),
        import('../output.js'),
      ]);
      const out = createOutput({ json: false });
      const config = await loadConfig(flags.config, { log: out });
      if (loop === undefined) {
        for (let i = 0; i < ticks; i += 1) {
          if (i > 0) await systemClock.sleep(config.watchdog.every);
          await tick(config, { clock: systemClock, log: out });
        }
        return;
      }
      const stop = new AbortController();
      const onSignal = (): void => stop.abort();
      process.once('SIGTERM', onSignal);
      process.once('SIGINT', onSignal);
      while (!stop.signal.aborted) {
        await tick(config, { clock: systemClock, log: out });
        await systemClock.sleep(loop * 1000, stop.signal).catch(() => undefined);
      }
    });
};
