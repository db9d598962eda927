import type { Command } from 'commander';
import { addConfigFlags } from '../config-flag.js';

/** The flags `deploy rollout` and `deploy rollback` share: one engine, one set of switches. */
export function addDeployFlags(command: Command): Command {
  return addConfigFlags(command)
    .option('--hosts <names>', 'only these hosts (comma separated)')
    .option('--batch <n|p%>', 'hosts drained at once (default rollout.batch)')
    .option('--dry-run', 'print the plan and the timeline; change nothing')
    .option(
      '--wait-lease <duration>',
      'queue behind another deploy holding the fleet lease (default: refuse at once)',
    )
    .option('--no-rollback', 'leave a failed host drained for inspection')
    .option('--json', 'NDJSON events, ending with a result line')
    .option('-v, --verbose', 'also print step starts');
}
