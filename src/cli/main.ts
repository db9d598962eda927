import { ExitCode, ExitStatus, isHandoffError, UsageError } from '../errors.js';
import { nodeVersionProblem } from '../node-version.js';
import { printable } from '../safe-text.js';
import { hostArgs, runHostOp } from './commands/host.js';
import { runWatchdog, tickFlags } from './commands/watchdog.js';

/**
 * The only place that prints errors and sets the exit code. Expected stops are
 * HandoffErrors and print one line; anything else is a bug and says so.
 */
export async function main(
  argv: readonly string[],
  node: string = process.versions.node,
): Promise<number> {
  // the bundles are built for Node 22.12 (scripts/build.ts); on a host, preflight asks first
  const oldNode = nodeVersionProblem(node, "this machine's node");
  if (oldNode) return report(new UsageError(oldNode));
  const light = lightCommand(argv);
  if (light) {
    try {
      await light();
      return ExitCode.ok;
    } catch (error) {
      return report(error);
    }
  }
  const [{ Command }, { commands }] = await Promise.all([
    import('commander'),
    import('./commands/index.js'),
  ]);
  const program = new Command('deploy')
    .description('zero-downtime rolling deploys behind a load balancer')
    .exitOverride()
    .showHelpAfterError(false)
    .configureOutput({
      writeErr: (s) => process.stderr.write(s),
      writeOut: (s) => process.stdout.write(s),
    });
  for (const register of commands) register(program);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return ExitCode.ok;
  } catch (error) {
    return report(error);
  }
}

/**
 * What runs on hosts over and over — a watchdog tick from cron, an agent
 * operation for the orchestrator — is parsed without commander (loading it
 * was a tenth of a tick); anything these parsers do not take, help included,
 * goes to commander as usual.
 */
function lightCommand(argv: readonly string[]): (() => Promise<void>) | undefined {
  const [command, ...rest] = argv;
  if (command === 'watchdog') {
    const flags = tickFlags(rest);
    return flags && (() => runWatchdog(flags));
  }
  if (command === 'host') {
    const parsed = hostArgs(rest);
    return parsed && (() => runHostOp(parsed.op, parsed.flags));
  }
  return undefined;
}

/** commander's errors, known without loading commander (a tick does not) */
function isCommanderError(error: unknown): error is Error & { code: string } {
  const code = (error as { code?: unknown } | null)?.code;
  return error instanceof Error && typeof code === 'string' && code.startsWith('commander.');
}

function report(error: unknown): number {
  if (isCommanderError(error)) {
    // commander already printed its message; --help and --version are not errors
    if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version')
      return ExitCode.ok;
    if (error.code === 'commander.help') return ExitCode.ok;
    return ExitCode.usage;
  }
  if (error instanceof ExitStatus) return error.code;
  if (isHandoffError(error)) {
    process.stderr.write(`deploy: ${printable(error.message)}\n`);
    return error.exitCode;
  }
  const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
  process.stderr.write(
    `deploy: internal error (a bug in handoff, please report it):\n${printable(detail)}\n`,
  );
  return ExitCode.failed;
}

const invokedDirectly =
  process.argv[1] !== undefined && /(?:main\.ts|deploy(?:\.[cm]?js)?)$/.test(process.argv[1]);
if (invokedDirectly) {
  // no top-level await: the host agent is bundled as CommonJS (scripts/build.ts)
  void main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
