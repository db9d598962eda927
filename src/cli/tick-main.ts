import { runWatchdog, tickCommand } from './commands/register-watchdog.js';
import { outcomeOfRun } from './outcome.js';
import { runMain, startMain } from './run-main.js';

/**
 * A cron tick in the host agent: its own small chunk (scripts/build.ts), so
 * the tick that runs once a minute on every host parses and compiles only
 * what a tick needs, not the whole agent (docs/benchmarks.md). It runs
 * exactly what main.ts runs for `deploy watchdog`; false, having run nothing,
 * for anything else (help, a mistake), which the whole agent then answers.
 */
export function startTick(argv: readonly string[]): boolean {
  const flags = tickCommand(argv);
  if (!flags) return false;
  startMain(() =>
    runMain(argv, process.versions.node, () => outcomeOfRun(() => runWatchdog(flags))),
  );
  return true;
}
