import type { Command } from 'commander';
import { MAX_DURATION_MS } from '../../config/kit/duration.js';
import { UsageError } from '../../errors.js';
import { addFlags, readFlags, type FlagSpec } from '../flag-table.js';
import type { TickResult } from '../../watchdog/tick.js';
import { destinationOf, type ConfigFlags } from '../config-flag.js';
import type { RegisterCommand } from './register.js';

interface WatchdogFlags extends ConfigFlags {
  readonly loop?: string;
  readonly ticks?: string;
  readonly json?: boolean;
}

/** The flags of `deploy watchdog` (flag-table.ts): a cron tick does not load commander. */
const FLAGS: readonly FlagSpec[] = [
  {
    name: 'config',
    short: 'c',
    value: '<file>',
    help: 'deploy.yml or the host config setup published',
    default: 'deploy.yml',
  },
  {
    name: 'destination',
    short: 'd',
    value: '<name>',
    help: 'merge deploy.NAME.yml over deploy.yml (not for the host config setup published)',
  },
  {
    name: 'ticks',
    value: '<n>',
    help: 'run N ticks, watchdog.every apart (cron, for a watchdog faster than once a minute)',
  },
  { name: 'loop', value: '<seconds>', help: 'tick every SECONDS until stopped (for the lab)' },
  { name: 'json', help: 'NDJSON events, ending with a result line listing each tick' },
];

/**
 * `deploy watchdog`: one tick, for cron. Cheap on purpose — it loads only what
 * a tick needs (no SSH, no AWS SDK, no YAML parser or zod for a sealed host
 * config, no commander for a plain tick).
 */
export const registerWatchdog: RegisterCommand = (program: Command) => {
  addFlags(
    program.command('watchdog').description('one watchdog tick (run from cron on every host)'),
    FLAGS,
  ).action((flags: WatchdogFlags) => runWatchdog(flags));
};

/**
 * `deploy watchdog` and its flags read without commander (flag-table.ts);
 * undefined for any other argv, and for help or a mistake: commander's to answer.
 */
export function tickCommand(argv: readonly string[]): WatchdogFlags | undefined {
  const [command, ...args] = argv;
  if (command !== 'watchdog') return undefined;
  return readFlags(FLAGS, args, 0)?.values as WatchdogFlags | undefined;
}

/**
 * cron runs at most 60 ticks a minute (watchdog.every 1s); a larger --ticks
 * (`1e9`) would keep one process ticking for years beside the next cron run's.
 */
const MAX_TICKS = 60;

export async function runWatchdog(flags: WatchdogFlags): Promise<void> {
  const loop = flags.loop === undefined ? undefined : Number(flags.loop);
  if (
    loop !== undefined &&
    !(Number.isFinite(loop) && loop > 0 && loop * 1000 <= MAX_DURATION_MS)
  ) {
    throw new UsageError(
      `--loop ${JSON.stringify(flags.loop)}: expected a positive number of seconds, at most ${MAX_DURATION_MS / 1000}`,
    );
  }
  const ticks = flags.ticks === undefined ? 1 : Number(flags.ticks);
  if (
    flags.ticks !== undefined &&
    !(/^\d+$/.test(flags.ticks) && ticks >= 1 && ticks <= MAX_TICKS)
  ) {
    throw new UsageError(
      `--ticks ${JSON.stringify(flags.ticks)}: expected a whole number from 1 to ${MAX_TICKS}`,
    );
  }
  const [{ loadConfig }, { tick }, { systemClock }, { createOutput }] = await Promise.all([
    import('../../config/load.js'),
    import('../../watchdog/tick.js'),
    import('../../clock.js'),
    import('../output.js'),
  ]);
  const out = createOutput({ json: flags.json === true });
  // read again at every tick: a `deploy setup` between two ticks of one process (--ticks
  // from cron, --loop) republishes it, and a tick must heal and check by what it says now
  // (a drain.method changed to deregister must not be healed as a health drain)
  const load = () =>
    loadConfig(flags.config, { log: out, trustSeal: true, ...destinationOf(flags) });
  let config = await load();
  if (loop === undefined) {
    const done: TickResult[] = [];
    for (let i = 0; i < ticks; i += 1) {
      if (i > 0) {
        await systemClock.sleep(config.watchdog.every);
        config = await load();
      }
      done.push(await tick(config, { clock: systemClock, log: out }));
    }
    out.result(true, { ticks: done });
    return;
  }
  const stop = new AbortController();
  const onSignal = (): void => stop.abort();
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
  while (!stop.signal.aborted) {
    await tick(config, { clock: systemClock, log: out });
    await systemClock.sleep(loop * 1000, stop.signal).catch(() => undefined);
    if (!stop.signal.aborted) config = await load();
  }
}
