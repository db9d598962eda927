import type { Clock } from '../clock.js';
import { killGroup } from '../host/exec.js';
import type { Log } from '../log.js';
import { LineQueue } from '../remote/line-queue.js';
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
  const { execa } = await import('execa');
  const child = execa(options.file, [], {
    cwd: options.cwd,
    env: options.env,
    stdin: 'ignore',
    all: true,
    reject: false,
    detached: true,
    buffer: false,
  });
  const stream = child.all
    ? (async () => {
        for await (const line of new LineQueue(child.all)) {
          options.log.emit({
            level: 'info',
            event: 'hook',
            message: `hook ${options.name}: ${line}`,
            ...(options.host ? { host: options.host } : {}),
          });
        }
      })()
    : Promise.resolve();
  const timer = new AbortController();
  let timedOut = false;
  void options.clock.sleep(options.timeoutMs, timer.signal).then(
    () => {
      timedOut = true;
      killGroup(child.pid, 'SIGKILL');
    },
    () => undefined,
  );
  const onAbort = (): void => killGroup(child.pid, 'SIGTERM');
  options.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    const result = await child;
    await stream;
    if (timedOut)
      return { ok: false, detail: `killed after hooks.timeout (${formatMs(options.timeoutMs)})` };
    if (result.exitCode === undefined && result.signal === undefined)
      return {
        ok: false,
        detail: `could not run: ${result.originalMessage ?? result.shortMessage}`,
      };
    if (result.signal) return { ok: false, detail: `ended by ${result.signal}` };
    return { ok: result.exitCode === 0, detail: `exited ${result.exitCode}` };
  } finally {
    timer.abort();
    options.signal?.removeEventListener('abort', onAbort);
  }
}
