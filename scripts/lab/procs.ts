import { closeSync, openSync, readFileSync, readdirSync, readlinkSync } from 'node:fs';

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

/*
 * A namespace's id (`mnt:[4026532…]`) is an inode number the kernel hands out
 * again, lowest first, as soon as the namespace is gone: a lab host whose
 * processes all died (a test that stops its sshd) would give its id to the
 * next namespace anyone creates — another lab's host, running in parallel —
 * and this lab's teardown would kill that one by id. An open file of the
 * namespace keeps it, and so its id, alive: the lab holds one per host until
 * its teardown has emptied it.
 */
const pins = new Map<string, number>();

/** Keep `pid`'s mount namespace (`ns`) alive, and its id ours, until unpinned. */
export function pinNamespace(pid: number, ns: string): boolean {
  if (pins.has(ns)) return true;
  try {
    const fd = openSync(`/proc/${pid}/ns/mnt`, 'r');
    // the process may have died and its id gone to another namespace since ns was read
    if (mountNamespaceOf(pid) !== ns) {
      closeSync(fd);
      return false;
    }
    pins.set(ns, fd);
    return true;
  } catch {
    return false;
  }
}

export function isPinned(ns: string): boolean {
  return pins.has(ns);
}

function unpin(ns: string): void {
  const fd = pins.get(ns);
  if (fd === undefined) return;
  pins.delete(ns);
  closeSync(fd);
}

/**
 * Whether namespace `ns` is still the one a lab host made: one of its
 * processes sees `file` (the host's hosts file) bind-mounted on /etc/hosts.
 * For a namespace this process did not pin: a crashed run's leftover.
 */
export function namespaceMounts(ns: string, file: string): boolean {
  for (const pid of pidsInNamespace(ns)) {
    let mountinfo: string;
    try {
      mountinfo = readFileSync(`/proc/${pid}/mountinfo`, 'utf8');
    } catch {
      continue;
    }
    // fields: id parent dev root mountpoint …; root is the path inside its filesystem
    return mountinfo.split('\n').some((line) => {
      const [, , , root, point] = line.split(' ');
      return point === '/etc/hosts' && root !== undefined && root.length > 1 && file.endsWith(root);
    });
  }
  return false;
}

/** SIGKILL everything in the namespace, now. For exit handlers, which cannot wait. */
export function killNamespaceSync(ns: string): void {
  for (const pid of pidsInNamespace(ns)) signal(pid, 'SIGKILL');
  unpin(ns);
}

/** SIGTERM everything in the namespace, SIGKILL what is left after `graceMs`, wait until empty. */
export async function killNamespace(ns: string, graceMs = 3000): Promise<void> {
  for (const pid of pidsInNamespace(ns)) signal(pid, 'SIGTERM');
  await until(() => pidsInNamespace(ns).length === 0, graceMs);
  for (const pid of pidsInNamespace(ns)) signal(pid, 'SIGKILL');
  const empty = await until(() => pidsInNamespace(ns).length === 0, 5000);
  unpin(ns);
  if (!empty) {
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
