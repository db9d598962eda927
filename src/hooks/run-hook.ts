import type { Clock } from '../clock.js';
import type { Log } from '../log.js';
import { runProcess } from '../process/run.js';
import { formatMs } from '../timing/duration.js';

export interface HookRunOptions {
  readonly name: string;
  readonly file: string;
  readonly cwd: string;
  /** HANDOFF_* variables, added to the orchestrator's environment */
  readonly env: NodeJS.ProcessEnv;
  readonly timeoutMs: number;
  readonly clock: Clock;
  readonly log: Log;
  /** the host a per-host hook runs for: its lines carry it */
  readonly host?: string;
  /** aborting sends SIGTERM to the hook's whole process group */
  readonly signal?: AbortSignal;
}

export interface HookRun {
  readonly ok: boolean;
  /** `exited 3`, `killed after hooks.timeout (5m)`, `exited 0` */
  readonly detail: string;
}

/**
 * Run one hook file as argv (no shell), its output streamed line by line as
 * `hook NAME: …`. It runs in its own process group, so the timeout kills what
 * it started too: a hook that backgrounds a `sleep` must not outlive it.
 */
export async function runHook(options: HookRunOptions): Promise<HookRun> {
  const result = await runProcess([options.file], {
    cwd: options.cwd,
    env: options.env,
    timeoutMs: options.timeoutMs,
    clock: options.clock,
    ...(options.signal && { signal: options.signal }),
    output: 'lines',
    onLine: (line) =>
      options.log.emit({
        level: 'info',
        event: 'hook',
        message: `hook ${options.name}: ${line}`,
        ...(options.host ? { host: options.host } : {}),
      }),
  });
  if (!result.started) return { ok: false, detail: `could not run: ${result.why}` };
  if (result.timedOut)
    return { ok: false, detail: `killed after hooks.timeout (${formatMs(options.timeoutMs)})` };
  if (result.endedBy) return { ok: false, detail: `ended by ${result.endedBy}` };
  return { ok: result.code === 0, detail: `exited ${result.code}` };
}
