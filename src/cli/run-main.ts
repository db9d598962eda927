import { UsageError } from '../errors.js';
import { nodeVersionProblem } from '../node-version.js';
import { outcomeOf, type Outcome } from './outcome.js';
import { stdoutJson } from './output.js';
import { quietOnEpipe } from './stdio.js';

/**
 * The only place that prints errors and sets the exit code, for every entry
 * (main.ts, and the agent's tick chunk, tick-main.ts). Expected stops are
 * HandoffErrors and print one line; anything else is a bug and says so. With
 * `--json` it also ends stdout with the one result line, whatever happened.
 */
export async function runMain(
  argv: readonly string[],
  node: string,
  run: (json: boolean) => Promise<Outcome>,
): Promise<number> {
  const json = wantsJson(argv);
  stdoutJson.start();
  // the bundles are built for Node 22.12 (scripts/build.ts); on a host, preflight asks first
  const oldNode = nodeVersionProblem(node, "this machine's node");
  const { code, failure } = oldNode ? outcomeOf(new UsageError(oldNode)) : await run(json);
  if (json) stdoutJson.finish(code, failure);
  return code;
}

/** `--json` anywhere before a `--` (after it, the words are another program's). */
function wantsJson(argv: readonly string[]): boolean {
  const end = argv.indexOf('--');
  return (end === -1 ? argv : argv.slice(0, end)).includes('--json');
}

/** The process's exit code is what `main` resolves with; a closed pipe is not a crash. */
export function startMain(main: () => Promise<number>): void {
  quietOnEpipe(process.stdout);
  quietOnEpipe(process.stderr);
  // no top-level await: the host agent is bundled as CommonJS (scripts/build.ts)
  void main().then((code) => {
    process.exitCode = code;
  });
}
