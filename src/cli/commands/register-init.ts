import type { Command } from 'commander';
import type { RegisterCommand } from './register.js';

/** `deploy init [-c FILE] [--force]`: a commented starter deploy.yml. */
export const registerInit: RegisterCommand = (program: Command) => {
  program
    .command('init')
    .description('write a commented starter deploy.yml')
    .option('-c, --config <file>', 'where to write it', 'deploy.yml')
    .option('--force', 'replace an existing file')
    .action(async (options: { config: string; force?: boolean }) => {
      const [{ writeStarterConfig }, { configJsonSchema }, { createOutput }] = await Promise.all([
        import('../../config/starter.js'),
        import('../../config/json-schema.js'),
        import('../output.js'),
      ]);
      const wrote = await writeStarterConfig(options.config, {
        force: options.force ?? false,
        schema: `${JSON.stringify(configJsonSchema(), null, 2)}\n`,
      });
      createOutput({ json: false }).text(
        [
          ...(wrote.createdDir ? [`created ${wrote.createdDir}/`] : []),
          `wrote ${options.config} and ${wrote.schemaFile} (for editors; 'deploy schema' prints it again): fill in hosts, balancer and services, then run 'deploy check'`,
        ].join('\n'),
      );
    });
};
