import type { Command } from 'commander';
import type { RollbackCliFlags } from '../rollout/rollout-command.js';
import { addDeployFlags } from './deploy-flags.js';
import type { RegisterCommand } from './register.js';

/** `deploy rollback [ID]`: a rollout back to the previous release (or ID), same handshake. */
export const registerRollback: RegisterCommand = (program: Command) => {
  addDeployFlags(
    program
      .command('rollback')
      .description('roll every host back to the previous release (or ID) with the drain handshake')
      .argument('[id]', 'the release to return to (default: the previous release every host has)'),
  ).action(async (id: string | undefined, flags: Omit<RollbackCliFlags, 'id'>) => {
    const { runRollback } = await import('../rollout/rollout-command.js');
    await runRollback({ ...flags, ...(id ? { id } : {}) });
  });
};
