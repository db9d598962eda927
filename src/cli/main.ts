import {
  ConfigError,
  ExitCode,
  ExitStatus,
  isHandoffError,
  UsageError,
  messageOf,
} from '../errors.js';
import { nodeVersionProblem } from '../node-version.js';
import { printable } from '../safe-text.js';
import { hostArgs, runHostOp } from './commands/host.js';
import { runWatchdog, tickFlags } from './commands/watchdog.js';
import type { JsonFailure } from './json-stream.js';
import { stdoutJson } from './output.js';
import { quietOnEpipe, toStderr, toStdout } from './stdio.js';
import { versionArgs } from './version-flag.js';

/**
 * The only place that prints errors and sets the exit code. Expected stops are
 * HandoffErrors and print one line; anything else is a bug and says so. With
 * `--json` it also ends stdout with the one result line, whatever happened.
 */
export async function main(
  argv: readonly string[],
  node: string = process.versions.node,
): Promise<number> {
  const json = wantsJson(argv);
  stdoutJson.start();
  // the bundles are built for Node 22.12 (scripts/build.ts); on a host, preflight asks first
  const oldNode = nodeVersionProblem(node, "this machine's node");
  const { code, failure } = oldNode ? outcomeOf(new UsageError(oldNode)) : await run(argv, json);
  if (json) stdoutJson.finish(code, failure);
  return code;
}

export interface Outcome {
  readonly code: number;
  readonly failure?: JsonFailure;
}

async function run(argv: readonly string[], json: boolean): Promise<Outcome> {
  const light = lightCommand(argv);
  if (light) {
    try {
      await light();
      return { code: ExitCode.ok };
    } catch (error) {
      return outcomeOf(error);
    }
  }
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

/** `--json` anywhere before a `--` (after it, the words are another program's). */
function wantsJson(argv: readonly string[]): boolean {
  const end = argv.indexOf('--');
  return (end === -1 ? argv : argv.slice(0, end)).includes('--json');
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

/** The exit code for what a command threw, having said why on stderr (commander has said it itself). */
export function outcomeOf(error: unknown): Outcome {
  if (isCommanderError(error)) {
    // commander already printed its message; --help is not an error
    if (error.code === 'commander.helpDisplayed' || error.code === 'commander.help')
      return { code: ExitCode.ok };
    return {
      code: ExitCode.usage,
      failure: { message: error.message.replace(/^error: /, '').replace(/\s*\n\s*/g, ' ') },
    };
  }
  if (error instanceof ExitStatus)
    return { code: error.code, failure: { message: `exit status ${error.code}` } };
  if (isHandoffError(error)) {
    toStderr(`deploy: ${printable(error.message)}\n`);
    return {
      code: error.exitCode,
      failure: {
        message: error.message,
        ...(error instanceof ConfigError ? { problems: error.problems } : {}),
      },
    };
  }
  const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
  toStderr(`deploy: internal error (a bug in handoff, please report it):\n${printable(detail)}\n`);
  const message = messageOf(error);
  return { code: ExitCode.failed, failure: { message: `internal error: ${message}` } };
}

const invokedDirectly =
  process.argv[1] !== undefined && /(?:main\.ts|deploy(?:\.[cm]?js)?)$/.test(process.argv[1]);
if (invokedDirectly) {
  quietOnEpipe(process.stdout);
  quietOnEpipe(process.stderr);
  // no top-level await: the host agent is bundled as CommonJS (scripts/build.ts)
  void main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
