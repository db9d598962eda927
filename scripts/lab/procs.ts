import { readFileSync, readdirSync, readlinkSync } from 'node:fs';

/** `mnt:[4026532…]` of a process, or undefined when it is gone. */
export function mountNamespaceOf(pid: number | 'self'): string | undefined {
  try {
    return readlinkSync(`/proc/${pid}/ns/mnt`);
  } catch {
    return undefined;
  }
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function commandLineOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
  } catch {
    return '';
  }
}

/**
 * Every process living in the mount namespace `ns`. Services started over SSH
 * daemonize out of sshd's process group, so the namespace, not the group, is
 * what says a process belongs to a lab host.
 */
export function pidsInNamespace(ns: string): number[] {
  if (ns === mountNamespaceOf('self') || ns === mountNamespaceOf(1)) {
    // a lab host that failed to unshare would otherwise name the machine's own namespace
    throw new Error(`refusing to kill the processes of this machine's own mount namespace ${ns}`);
  }
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid <= 1 || pid === process.pid) continue;
    if (mountNamespaceOf(pid) === ns) pids.push(pid);
  }
  return pids;
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // already gone
  }
}

/** SIGKILL everything in the namespace, now. For exit handlers, which cannot wait. */
export function killNamespaceSync(ns: string): void {
  for (const pid of pidsInNamespace(ns)) signal(pid, 'SIGKILL');
}

/** SIGTERM everything in the namespace, SIGKILL what is left after `graceMs`, wait until empty. */
export async function killNamespace(ns: string, graceMs = 3000): Promise<void> {
  for (const pid of pidsInNamespace(ns)) signal(pid, 'SIGTERM');
  await until(() => pidsInNamespace(ns).length === 0, graceMs);
  killNamespaceSync(ns);
  if (!(await until(() => pidsInNamespace(ns).length === 0, 5000))) {
    throw new Error(`processes still alive in ${ns}: ${pidsInNamespace(ns).join(', ')}`);
  }
}

/** SIGTERM a process group (a lab process is started detached: its own group), then SIGKILL. */
export async function killGroup(pid: number, graceMs = 3000): Promise<void> {
  signal(-pid, 'SIGTERM');
  await until(() => !isAlive(pid), graceMs);
  signal(-pid, 'SIGKILL');
  if (!(await until(() => !isAlive(pid), 5000))) throw new Error(`pid ${pid} survived SIGKILL`);
}

export function killGroupSync(pid: number): void {
  signal(-pid, 'SIGKILL');
}

/** Poll `condition` every 50 ms; false if `timeoutMs` passed first. */
export async function until(
  condition: () => boolean | Promise<boolean>,
  timeoutMs: number,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await condition()) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
}
