import type { Command } from 'commander';
import type { RegisterCommand } from './index.js';

/** `deploy init [-c FILE] [--force]`: a commented starter deploy.yml. */
export const registerInit: RegisterCommand = (program: Command) => {
  program
    .command('init')
    .description('write a commented starter deploy.yml')
    .option('-c, --config <file>', 'where to write it', 'deploy.yml')
    .option('--force', 'replace an existing file')
    .action(async (options: { config: string; force?: boolean }) => {
      const [{ writeStarterConfig }, { createOutput }] = await Promise.all([
        import('../../config/starter.js'),
        import('../output.js'),
      ]);
      await writeStarterConfig(options.config, { force: options.force ?? false });
      createOutput({ json: false }).text(
        `wrote ${options.config}: fill in hosts, balancer and services, then run 'deploy check'`,
      );
    });
};
