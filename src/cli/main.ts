import { ExitCode } from '../errors.js';
import { hostArgs, runHostOp } from './commands/register-host.js';
import { runWatchdog, tickCommand } from './commands/register-watchdog.js';
import { outcomeOf, outcomeOfRun, type Outcome } from './outcome.js';
import { runMain, startMain } from './run-main.js';
import { toStderr, toStdout } from './stdio.js';
import { versionArgs } from './version-flag.js';

/** Every command of the CLI (and of the agent: scripts/build.ts); the exit code (run-main.ts). */
export function main(
  argv: readonly string[],
  node: string = process.versions.node,
): Promise<number> {
  return runMain(argv, node, (json) => run(argv, json));
}

async function run(given: readonly string[], json: boolean): Promise<Outcome> {
  const argv = destinationAfterCommand(given);
  const light = lightCommand(argv);
  if (light) return outcomeOfRun(light);
  const [{ Command }, { commands }] = await Promise.all([
    import('commander'),
    import('./commands/index.js'),
  ]);
  const program = new Command('deploy')
    .description('zero-downtime rolling deploys behind a load balancer')
    .option('-V, --version', 'print the version (with --verbose: the agent bundle’s sha256 too)')
    .exitOverride()
    .showHelpAfterError(false)
    .configureOutput({
      writeErr: toStderr,
      // with --json, stdout holds NDJSON only: help goes to stderr
      writeOut: json ? toStderr : toStdout,
    });
  for (const register of commands) register(program);
  if (argv.length === 0) {
    // no command is a usage mistake: the help, where a mistake's message goes
    program.outputHelp({ error: true });
    return { code: ExitCode.usage, failure: { message: 'no command given' } };
  }
  try {
    await program.parseAsync(argv, { from: 'user' });
    return { code: ExitCode.ok };
  } catch (error) {
    return outcomeOf(error);
  }
}

/**
 * `deploy -d staging rollout …` as `deploy rollout … -d staging`: the
 * destination is every command's flag (Kamal's spelling puts it first), and
 * commander takes a command's flags after the command's name.
 */
export function destinationAfterCommand(argv: readonly string[]): readonly string[] {
  const [first, value] = argv;
  const inline = first?.startsWith('--destination=');
  if (!inline && first !== '-d' && first !== '--destination') return argv;
  const flag = inline ? [first as string] : argv.slice(0, 2);
  const rest = argv.slice(flag.length);
  if (!inline && value === undefined) return argv;
  const end = rest.indexOf('--');
  return end === -1 ? [...rest, ...flag] : [...rest.slice(0, end), ...flag, ...rest.slice(end)];
}

/**
 * What runs on hosts over and over — a watchdog tick from cron, an agent
 * operation for the orchestrator — is parsed without commander (loading it
 * was a tenth of a tick); anything these parsers do not take, help included,
 * goes to commander as usual. `--version` needs no commander either.
 */
function lightCommand(argv: readonly string[]): (() => Promise<void>) | undefined {
  const [command, ...rest] = argv;
  const version = versionArgs(argv);
  if (version) return async () => (await import('./version-flag.js')).printVersion(version);
  const tick = tickCommand(argv);
  if (tick) return () => runWatchdog(tick);
  if (command === 'host') {
    const parsed = hostArgs(rest);
    return parsed && (() => runHostOp(parsed.op, parsed.flags));
  }
  return undefined;
}

const invokedDirectly =
  process.argv[1] !== undefined && /(?:main\.ts|deploy(?:\.[cm]?js)?)$/.test(process.argv[1]);
if (invokedDirectly) startMain(() => main(process.argv.slice(2)));
