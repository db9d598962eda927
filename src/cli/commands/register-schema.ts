import type { Command } from 'commander';
import type { RegisterCommand } from './register.js';

/** `deploy schema`: the JSON Schema of deploy.yml, for editors and CI. */
export const registerSchema: RegisterCommand = (program: Command) => {
  program
    .command('schema')
    .description('print the JSON Schema of deploy.yml')
    .action(async () => {
      const [{ configJsonSchema }, { createOutput }] = await Promise.all([
        import('../../config/json-schema.js'),
        import('../output.js'),
      ]);
      createOutput({ json: false }).raw(JSON.stringify(configJsonSchema(), null, 2));
    });
};
