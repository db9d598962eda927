import type { Command } from 'commander';
import { UsageError } from '../../errors.js';
import type { RolloutCliFlags } from '../rollout/rollout-command.js';
import { addDeployFlags } from './deploy-flags.js';
import type { RegisterCommand } from './register.js';

/** `deploy rollout`: the drain handshake, one host (or batch) at a time. */
export const registerRollout: RegisterCommand = (program: Command) => {
  // both set one value (the last wins): each is seen as given, so the pair is refused
  const given = new Set<string>();
  const rollout = program
    .command('rollout')
    .on('option:canary', () => given.add('canary'))
    .on('option:no-canary', () => given.add('no-canary'));
  addDeployFlags(
    rollout
      .description('deploy a release host by host with the drain handshake')
      .requiredOption('--release <id>', 'the release id to deploy')
      .option('--artifact <path>', 'a .tar.gz, .tgz or directory shipped into releases/<id>/')
      .option('--canary <n|p%>', 'deploy and bake this many hosts first (default rollout.canary)')
      .option('--canary-bake <duration>', "the canary's bake (default rollout.canary.bake, 5m)")
      .option('--no-canary', 'no canary this time, whatever rollout.canary says'),
  ).action(async (flags: RolloutCliFlags) => {
    if (given.size === 2)
      throw new UsageError('--no-canary and --canary contradict each other: give one of them');
    const { runRollout } = await import('../rollout/rollout-command.js');
    await runRollout(flags);
  });
};
