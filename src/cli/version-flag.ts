import { VERSION } from '../version.js';
import { toStdout } from './stdio.js';

export interface VersionArgs {
  readonly verbose: boolean;
  readonly json: boolean;
}

/**
 * `deploy --version` / `-V`, with `--verbose` and `--json` in any order and
 * nothing else; undefined when argv is something else.
 */
export function versionArgs(argv: readonly string[]): VersionArgs | undefined {
  if (!argv.some((a) => a === '--version' || a === '-V')) return undefined;
  if (!argv.every((a) => ['--version', '-V', '--verbose', '-v', '--json'].includes(a)))
    return undefined;
  return {
    verbose: argv.includes('--verbose') || argv.includes('-v'),
    json: argv.includes('--json'),
  };
}

/**
 * The version; with `--verbose` also the sha256 of the agent this program
 * would install on hosts, which is what every fleet command expects a host's
 * agent to be (`deploy setup` installs it).
 */
export async function printVersion(args: VersionArgs): Promise<void> {
  const agent = args.verbose ? await (await import('./agent-bundle.js')).readAgent() : undefined;
  if (args.json) {
    const { stdoutJson } = await import('./output.js');
    stdoutJson.result(true, {
      version: VERSION,
      ...(agent ? { agentSha256: agent.sha256, agentPath: agent.path } : {}),
    });
    return;
  }
  toStdout(`${VERSION}\n`);
  if (agent) toStdout(`agent ${agent.path}\nagent sha256 ${agent.sha256}\n`);
}
