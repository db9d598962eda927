import type { Command } from 'commander';
import type { ConfigFlags } from '../config-flag.js';
import { common } from './register-fleet.js';
import type { RegisterCommand } from './register.js';

interface LogsFlags extends ConfigFlags {
  readonly json?: boolean;
  readonly follow?: boolean;
  readonly since?: string;
  readonly tail?: string;
}

interface ExecFlags extends ConfigFlags {
  readonly json?: boolean;
  readonly force?: string;
}

/** `deploy logs HOST…` and `deploy exec HOST… -- CMD`: the service on named hosts, through their agents. */
export const registerOnHosts: RegisterCommand = (program: Command) => {
  common(
    program
      .command('logs')
      .description(
        "the service's logs from each host named, prefixed with the host (compose logs; the command runtime's start output)",
      )
      .argument('<hosts...>', 'host names from deploy.yml'),
  )
    .option('-f, --follow', 'keep printing what comes, until Ctrl-C')
    .option('--since <when>', 'compose: only what was logged since (10m, 2026-11-30T12:00:00Z)')
    .option('--tail <lines>', 'start with this many of the last lines (default 100)')
    .action(async (names: string[], flags: LogsFlags) =>
      (await import('../on-hosts/logs-command.js')).runLogs(names, flags),
    );

  common(
    program
      .command('exec')
      .description(
        "run a command on each host named, as ssh.user in the live release's directory with its environment (audited)",
      )
      .argument('<hosts...>', "host names from deploy.yml, then '--' and the command"),
  )
    .option(
      '--force <reason>',
      'run even where another holds the host lock; the reason goes to the audit',
    )
    .action(async (words: string[], flags: ExecFlags) => {
      const [{ splitCommand }, { runExec }] = await Promise.all([
        import('../on-hosts/exec-argv.js'),
        import('../on-hosts/exec-command.js'),
      ]);
      const { hosts, command } = splitCommand(words, process.argv);
      await runExec(hosts, command, flags);
    });
};
