import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { labFiles, type LabHostPlan, type LabLayout } from './layout.js';
import { isAlive, killGroupSync, mountNamespaceOf, pinNamespace, until } from './procs.js';

export interface LabHost extends LabHostPlan {
  /** sshd, the first process of the host's namespaces: `nsenter -t <pid> -m -u` */
  readonly pid: number;
  readonly mountNamespace: string;
}

/*
 * Runs inside the new mount and UTS namespaces, before sshd. Fixed text: every
 * value arrives as a positional argument, never glued into the script.
 * $1 hostname, $2 hosts file, $3 sshd_config, $4 service name, $5 how many
 * binds follow as pairs (a directory of the lab's, where it appears on the
 * host), then the private mounts.
 */
const HOST_SCRIPT = `set -eu
hostname "$1"
mount --bind "$2" /etc/hosts
cfg=$3; svc=$4; binds=$5; shift 5
while [ "$binds" -gt 0 ]; do
  mkdir -p "$2"
  mount --bind "$1" "$2"
  shift 2; binds=$((binds - 1))
done
for dir in "$@"; do
  mkdir -p "$dir"
  mount -t tmpfs -o mode=0755,size=256m handoff-lab "$dir"
done
mkdir -p "/srv/handoff/$svc" "/run/handoff/$svc" /var/lock/handoff /run/sshd
# a login shell's rc files (pyenv init on this image) cost seconds per SSH command
for rc in /root/.bashrc /root/.profile; do [ -e "$rc" ] && mount --bind /dev/null "$rc"; done
exec /usr/sbin/sshd -D -e -f "$cfg"
`;

export function hostArgv(layout: LabLayout, host: LabHostPlan): string[] {
  const dir = labFiles(layout.workDir).hostDir(host.name);
  return [
    'unshare',
    '--mount',
    '--uts',
    '--propagation',
    'private',
    '--',
    'sh',
    '-c',
    HOST_SCRIPT,
    `lab-${host.name}`,
    host.name,
    path.join(dir, 'hosts'),
    path.join(dir, 'sshd_config'),
    layout.service,
    String(host.binds?.length ?? 0),
    ...(host.binds ?? []).flat(),
    ...layout.privateMounts,
  ];
}

/** Resolves when sshd answers with its banner on the host's address. */
function sshBanner(address: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: address, port, timeout: 1000 });
    const done = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.once('data', (d) => done(d.toString().startsWith('SSH-')));
    socket.once('error', () => done(false));
    socket.once('timeout', () => done(false));
  });
}

/**
 * Start one host: a long-lived sshd in its own mount namespace, detached into
 * its own process group. `onStarted` runs as soon as the pid is known, so the
 * caller records it before anything else can fail.
 */
export async function startHost(
  layout: LabLayout,
  plan: LabHostPlan,
  onStarted: (host: LabHost) => void,
): Promise<LabHost> {
  const log = path.join(labFiles(layout.workDir).hostDir(plan.name), 'sshd.log');
  const fd = openSync(log, 'w');
  const [cmd, ...args] = hostArgv(layout, plan);
  const child = spawn(cmd as string, args, { detached: true, stdio: ['ignore', fd, fd] });
  closeSync(fd);
  child.unref();
  const pid = child.pid;
  if (pid === undefined) throw new Error(`${plan.name}: could not start unshare`);
  const own = mountNamespaceOf('self');
  let ns: string | undefined;
  await until(() => {
    ns = mountNamespaceOf(pid);
    return !isAlive(pid) || (ns !== undefined && ns !== own);
  }, 5000);
  if (!isAlive(pid) || ns === undefined || ns === own || !pinNamespace(pid, ns)) {
    killGroupSync(pid);
    throw new Error(`${plan.name}: no mount namespace came up; see ${log}:\n${tail(log)}`);
  }
  const host: LabHost = { ...plan, pid, mountNamespace: ns };
  onStarted(host);
  const ready = await until(
    async () => !isAlive(pid) || (await sshBanner(plan.address, plan.sshPort)),
    10_000,
  );
  if (!ready || !isAlive(pid)) {
    throw new Error(
      `${plan.name}: sshd did not come up on ${plan.address}:${plan.sshPort}; see ${log}:\n${tail(log)}`,
    );
  }
  return host;
}

function tail(file: string): string {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-10).join('\n');
  } catch {
    return '';
  }
}
