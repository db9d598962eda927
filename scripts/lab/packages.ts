import { existsSync } from 'node:fs';
import { execa } from 'execa';

/** Debian package → the file that says it is installed. */
const needed: Record<string, string> = {
  haproxy: '/usr/sbin/haproxy',
  'openssh-server': '/usr/sbin/sshd',
  'openssh-client': '/usr/bin/ssh',
  'util-linux': '/usr/bin/unshare',
  // ssh.sudo's e2e (test/e2e/sudo.test.ts): a non-root lab user runs setup through sudo
  sudo: '/usr/bin/sudo',
  // the lab's --balancer nginx (test/e2e/nginx.test.ts)
  'nginx-light': '/usr/sbin/nginx',
  // the fleet lease's etcd store (scripts/lab/etcd.ts, test/e2e/lease-etcd.test.ts)
  'etcd-server': '/usr/bin/etcd',
};

export function missingPackages(): string[] {
  return Object.entries(needed)
    .filter(([, file]) => !existsSync(file))
    .map(([pkg]) => pkg);
}

/**
 * Install what the lab needs when we are root; otherwise say exactly what to
 * run. The lab mounts and binds port 22, so it needs root either way.
 */
export async function ensurePackages(
  report: (line: string) => void = () => undefined,
): Promise<void> {
  const missing = missingPackages();
  const isRoot = process.getuid?.() === 0;
  if (!isRoot) {
    const hint = missing.length > 0 ? `sudo apt-get install -y ${missing.join(' ')}; then ` : '';
    throw new Error(`the lab needs root (mount namespaces, port 22): ${hint}run it as root`);
  }
  if (missing.length === 0) return;
  report(`installing ${missing.join(' ')} (apt-get)`);
  const env = { DEBIAN_FRONTEND: 'noninteractive' };
  await execa('apt-get', ['update', '-qq'], { env, timeout: 300_000 });
  await execa('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...missing], {
    env,
    timeout: 600_000,
  });
}
