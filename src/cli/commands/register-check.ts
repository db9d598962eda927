import type { Command } from 'commander';
import { addConfigFlags, destinationOf, type ConfigFlags } from '../config-flag.js';
import type { RegisterCommand } from './register.js';

interface CheckFlags extends ConfigFlags {
  readonly live?: boolean;
  readonly strict?: boolean;
  readonly json?: boolean;
}

/** `deploy check`: the drain timeline and the invariants between the numbers. */
export const registerCheck: RegisterCommand = (program: Command) => {
  addConfigFlags(
    program
      .command('check')
      .description('print the drain timeline and check the invariants between the timing numbers'),
  )
    .option(
      '--live',
      "read the balancer's real health-check settings instead of deploy.yml's, and each host's last stop (a service that needed SIGKILL)",
    )
    .option('--strict', 'fail on warnings too (what CI should run)')
    .option('--json', 'print {ok, timeline, invariants} as JSON')
    .action(async (flags: CheckFlags) => {
      const [{ loadConfig }, { runCheck }, { createOutput }] = await Promise.all([
        import('../../config/load.js'),
        import('../check/check-command.js'),
        import('../output.js'),
      ]);
      const out = createOutput({ json: flags.json ?? false });
      const config = await loadConfig(flags.config, { log: out, ...destinationOf(flags) });
      const strict = flags.strict ?? false;
      if (!flags.live) return runCheck(config, out, { live: false, strict });
      // live: the balancer's settings, and what each host saw at its last stop
      const { Connections } = await import('../connections.js');
      // a status read changes nothing: any agent version may answer it
      const connections = new Connections(config, out);
      await connections.checkAuth();
      const byName = new Map(config.hosts.map((h) => [h.name, h]));
      try {
        await runCheck(config, out, {
          live: true,
          strict,
          readLastStop: async (name) =>
            (await (await connections.agent(byName.get(name)!)).run('status', {})).lastStop ?? null,
        });
      } finally {
        await connections.close();
      }
    });
};
