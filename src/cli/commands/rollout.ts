import type { Command } from 'commander';
import type { RolloutCliFlags } from '../rollout.js';
import type { RegisterCommand } from './index.js';

/** `deploy rollout`: the drain handshake, one host (or batch) at a time. */
export const registerRollout: RegisterCommand = (program: Command) => {
  program
    .command('rollout')
    .description('deploy a release host by host with the drain handshake')
    .requiredOption('--release <id>', 'the release id to deploy')
    .option('-c, --config <file>', 'deploy.yml', 'deploy.yml')
    .option('--hosts <names>', 'only these hosts (comma separated)')
    .option('--artifact <path>', 'a .tar.gz, .tgz or directory shipped into releases/<id>/')
    .option('--batch <n|p%>', 'hosts drained at once (default rollout.batch)')
    .option('--dry-run', 'print the plan and the timeline; change nothing')
    .option('--no-rollback', 'leave a failed host drained for inspection')
    .option('--json', 'NDJSON events, ending with a result line')
    .option('-v, --verbose', 'also print step starts')
    .action(async (flags: RolloutCliFlags) => {
      const { runRollout } = await import('../rollout.js');
      await runRollout(flags);
    });
};
