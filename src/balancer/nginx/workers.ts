/**
 * nginx's workers as `ps -o pid=,args= --ppid MASTER` lists them. A reload
 * starts new workers and tells the old ones to finish what they hold; those
 * retitle themselves "nginx: worker process is shutting down" until they exit.
 */

export interface Worker {
  readonly pid: number;
  readonly shuttingDown: boolean;
}

export function parseWorkers(ps: string): Worker[] {
  const workers: Worker[] = [];
  for (const line of ps.split('\n')) {
    const m = /^\s*(\d+)\s+nginx: (worker process|cache \w+ process)(.*)$/.exec(line);
    if (!m || m[2] !== 'worker process') continue;
    workers.push({ pid: Number(m[1]), shuttingDown: /is shutting down/.test(m[3] ?? '') });
  }
  return workers;
}

/** argv: the master's children, one `PID ARGS` line each */
export function listWorkers(masterPid: number): string[] {
  return ['ps', '-o', 'pid=,args=', '--ppid', String(masterPid)];
}

export function nginxArgv(mainConfig: string | undefined, ...args: string[]): string[] {
  return ['nginx', ...(mainConfig !== undefined ? ['-c', mainConfig] : []), ...args];
}
