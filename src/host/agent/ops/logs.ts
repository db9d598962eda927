import type { Config } from '../../../config/types.js';
import { OperationError } from '../../../errors.js';
import type { CommandExit } from '../../../protocol/results.js';
import { createHostExec } from '../../exec.js';
import { readLiveRelease } from '../../releases.js';
import { readReleaseVars } from '../../runtime/common.js';
import { createRuntime } from '../../runtime/create.js';
import { runtimeSettings } from '../../runtime/runtime.js';
import type { AgentIO } from '../io.js';
import { outputRelay, untilStdinEnds } from './command-output.js';

export interface LogsArgs {
  readonly follow: boolean;
  readonly since?: string;
  readonly tail: number;
}

/** The live release's services' logs as its runtime keeps them, line by line, until they end or stdin does. */
export async function logs(config: Config, io: AgentIO, args: LogsArgs): Promise<CommandExit> {
  const release = await readLiveRelease(config.host.root);
  if (release === null) throw new OperationError('no release is live on this host: no logs yet');
  const settings = runtimeSettings(config);
  // its secrets join the mask before a line is relayed
  await readReleaseVars(settings, release);
  const exec = createHostExec();
  const commands = await createRuntime(settings, release, exec).logsCommands(args);
  const stop = untilStdinEnds(io);
  try {
    const onLine = outputRelay(io);
    const runs = await Promise.all(
      commands.map((c) =>
        exec(c.argv, {
          onLine,
          capture: false,
          signal: stop.signal,
          ...(c.cwd === undefined ? {} : { cwd: c.cwd }),
          ...(c.env === undefined ? {} : { env: c.env }),
        }),
      ),
    );
    // stopped by the orchestrator: that is how a follow ends, not a failure
    const failed = runs.find((r) => r.code !== 0);
    return { release, code: stop.signal.aborted ? 0 : (failed?.code ?? 0) };
  } finally {
    stop.done();
  }
}
