import type { Command } from 'commander';

/** The flags every command that reads deploy.yml takes: the file, and a destination over it. */
export interface ConfigFlags {
  readonly config: string;
  readonly destination?: string;
}

export function addConfigFlags(command: Command, what = 'deploy.yml'): Command {
  return command
    .option('-c, --config <file>', what, 'deploy.yml')
    .option(
      '-d, --destination <name>',
      'merge deploy.NAME.yml (beside the config) over it: maps merged, lists replaced',
    );
}

/** The load options a command's flags ask for. */
export function destinationOf(flags: ConfigFlags): { destination?: string } {
  return flags.destination === undefined ? {} : { destination: flags.destination };
}
