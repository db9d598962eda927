import type { execa } from 'execa';

/** A `deploy …` started now: its NDJSON events (with --json) readable while it runs. */
export interface DeployRun<E> {
  readonly events: E[];
  readonly pid: number | undefined;
  stderr(): string;
  exitCode(): number | null;
  kill(): void;
  readonly done: Promise<{ code: number; stdout: string; stderr: string }>;
}

/** Follows a started `deploy` process: its output collected, each JSON line parsed as it comes. */
export function followDeploy<E>(proc: ReturnType<typeof execa>): DeployRun<E> {
  const events: E[] = [];
  let buffered = '';
  let stdout = '';
  let stderr = '';
  proc.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  proc.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    buffered += chunk.toString();
    const lines = buffered.split('\n');
    buffered = lines.pop() ?? '';
    for (const l of lines) if (l.startsWith('{')) events.push(JSON.parse(l) as E);
  });
  return {
    events,
    pid: proc.pid,
    stderr: () => stderr,
    exitCode: () => proc.exitCode ?? null,
    kill: () => proc.kill('SIGKILL'),
    done: proc.then((r) => ({ code: r.exitCode ?? -1, stdout, stderr })),
  };
}

/** The condition, polled until it holds (or the deadline: then it fails naming what it waited for). */
export async function untilTrue(what: string, ok: () => boolean, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`never: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
