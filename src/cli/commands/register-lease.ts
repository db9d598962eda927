import type { Command } from 'commander';
import type { RegisterCommand } from './register.js';

/** `deploy lease break --yes`: an operator frees the fleet lease, in whichever store holds it. */
export const registerLease: RegisterCommand = (program: Command) => {
  program
    .command('lease')
    .description('the fleet lease (docs/lease.md)')
    .command('break')
    .description('remove the fleet lease whoever holds it (asks for --yes)')
    .option('-c, --config <file>', 'deploy.yml', 'deploy.yml')
    .option('--yes', 'really break it: its holder stops at its next safe point')
    .option('--json', 'machine-readable output ending with a result line')
    .action(async (flags: { config: string; yes?: boolean; json?: boolean }) => {
      const { runLeaseBreak } = await import('../lease/lease-break-command.js');
      await runLeaseBreak(flags);
    });
};
