import type { Command } from 'commander';
import { addConfigFlags, type ConfigFlags } from '../config-flag.js';
import type { RegisterCommand } from './register.js';

interface Flags extends ConfigFlags {
  readonly hosts?: string;
  readonly json?: boolean;
  readonly local?: boolean;
  readonly verbose?: boolean;
  readonly lease?: string;
  /** commander's `--no-wait`: false when given */
  readonly wait?: boolean;
  readonly waitLease?: string;
  readonly force?: boolean;
}

/** A fleet command's config flags and --json. */
export const common = (c: Command): Command =>
  addConfigFlags(c).option('--json', 'machine-readable output ending with a result line');

/** `deploy setup`, `verify`, `status`, `audit`, `receipt`, `releases`, `drain`, `undrain`: the fleet over SSH. */
export const registerFleet: RegisterCommand = (program: Command) => {
  registerSetup(program);
  registerReads(program);
  registerReceipt(program);
  for (const drain of [true, false]) registerDrain(program, drain);
};

function registerSetup(program: Command): void {
  common(
    program
      .command('setup')
      .description(
        'install the agent, host config, directories and watchdog cron entry on each host',
      ),
  )
    .option('--hosts <names>', 'only these hosts (comma separated)')
    .option(
      '--print-sudoers',
      'with ssh.sudo: print the sudoers file allowing exactly what setup runs as root, and contact no host',
    )
    .option(
      '--print-cron',
      "print the watchdog's cron entry (with ssh.sudo root installs it), and contact no host",
    )
    .option(
      '--node <path>',
      "with --print-cron: the host's node, whose directory leads the PATH line",
    )
    .action(
      async (flags: Flags & { printSudoers?: boolean; printCron?: boolean; node?: string }) => {
        const setup = await import('../fleet/setup-command.js');
        if (flags.printSudoers || flags.printCron) await setup.printRootFiles(flags);
        else await setup.runSetup(flags);
      },
    );
}

/** the commands that read the fleet and change nothing */
function registerReads(program: Command): void {
  common(
    program.command('verify').description('check every service on every host, and the balancer'),
  )
    .option('--hosts <names>', 'only these hosts (comma separated)')
    .option('--local', 'on a host: check its services directly, no SSH')
    .option('-v, --verbose', 'every host in the table, also over 20 hosts (a line per state)')
    .action(async (flags: Flags) => (await import('../fleet/verify-command.js')).runVerify(flags));

  common(
    program
      .command('status')
      .description('release, lock holder, drain marker and balancer state per host'),
  )
    .option('--hosts <names>', 'only these hosts (comma separated)')
    .option('-v, --verbose', 'every host on its line, also over 20 hosts (settled ones counted)')
    .action(async (flags: Flags) => (await import('../fleet/status-command.js')).runStatus(flags));

  common(
    program
      .command('audit')
      .description(
        "every host's audit.jsonl as one timeline, newest last: deploys and watchdog restarts",
      ),
  )
    .option('--hosts <names>', 'only these hosts (comma separated)')
    .option(
      '--since <when>',
      'only entries since a time (2026-11-30T12:00:00Z) or this long ago (2h)',
    )
    .action(async (flags: Flags & { since?: string }) =>
      (await import('../fleet/audit-command.js')).runAudit(flags),
    );

  common(
    program
      .command('releases')
      .description('the releases on each host: current, previous, age and size'),
  )
    .option('--hosts <names>', 'only these hosts (comma separated)')
    .action(async (flags: Flags) =>
      (await import('../fleet/releases-command.js')).runReleases(flags),
    );
}

function registerReceipt(program: Command): void {
  common(
    program
      .command('receipt')
      .description(
        "the failed requests a balancer's provider counts per minute, for deploy.yml's balancers over a window (a rollout's final receipt)",
      ),
  )
    .requiredOption(
      '--from <when>',
      'the window opens: a time (2026-11-30T12:00:00Z, as the rollout prints it) or this long ago (2h)',
    )
    .option('--to <when>', 'the window closes (default now)')
    .action(async (flags: Flags & { from: string; to?: string }) =>
      (await import('../fleet/receipt-command.js')).runReceipt(flags),
    );
}

function registerDrain(program: Command, drain: boolean): void {
  const name = drain ? 'drain' : 'undrain';
  const cmd = common(
    program
      .command(name)
      .description(
        drain
          ? 'take a host out of rotation and wait until the balancer has it out and the overlap passed'
          : 'put a drained host back and wait until the balancer has it in rotation',
      ),
  )
    .argument('<host>', 'host name from deploy.yml')
    .option('--no-wait', 'change the drain marker and return without asking the balancer')
    .option(
      '--wait-lease <duration>',
      'queue behind another deploy holding the fleet lease (default: refuse at once)',
    );
  if (drain)
    cmd
      .option(
        '--lease <duration>',
        'how long the drain holds before the watchdog reports it',
        '24h',
      )
      .option(
        '--force',
        'drain even if the capacity guard refuses (said, and recorded in the audit)',
      );
  cmd.action(async (host: string, flags: Flags) => {
    const [{ runDrain }, { parseDuration }] = await Promise.all([
      import('../fleet/drain-command.js'),
      import('../../config/kit/duration.js'),
    ]);
    const { waitLease, ...rest } = flags;
    await runDrain(
      {
        ...rest,
        lease: parseDuration(flags.lease ?? '24h', '--lease'),
        wait: flags.wait ?? true,
        ...(waitLease !== undefined && {
          waitLease: parseDuration(waitLease, '--wait-lease'),
        }),
      },
      host,
      drain,
    );
  });
}
