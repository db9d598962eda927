import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { execa } from 'execa';
import { composeEnv } from './compose.js';
import { labFiles, sshHosts, type LabHostPlan, type LabLayout } from './layout.js';

async function keygen(file: string, comment: string): Promise<string> {
  await rm(file, { force: true });
  await rm(`${file}.pub`, { force: true });
  await mkdir(path.dirname(file), { recursive: true });
  await execa('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', comment, '-f', file], {
    timeout: 30_000,
  });
  return (await readFile(`${file}.pub`, 'utf8')).trim();
}

/** known_hosts names a non-22 port as `[addr]:port`, as OpenSSH and ssh2 clients expect. */
export function knownHostsName(host: LabHostPlan): string {
  return host.sshPort === 22 ? host.address : `[${host.address}]:${host.sshPort}`;
}

export function sshdConfig(layout: LabLayout, host: LabHostPlan, hostKey: string): string {
  const files = labFiles(layout.workDir);
  // node first: the agent and the services run as `node …` in non-login SSH sessions
  const pathVar = [
    ...(host.pathFirst ? [host.pathFirst] : []),
    path.dirname(process.execPath),
    '/usr/local/sbin',
    '/usr/local/bin',
    '/usr/sbin',
    '/usr/bin',
    '/sbin',
    '/bin',
  ];
  // compose mode: the agent's compose commands reach this host's own Podman
  const extraEnv =
    layout.runtime === 'compose'
      ? Object.entries(composeEnv(layout, host)).map(([k, v]) => `${k}=${v}`)
      : [];
  return [
    `ListenAddress ${host.address}:${host.sshPort}`,
    `HostKey ${hostKey}`,
    'PidFile none',
    `AuthorizedKeysFile ${files.authorizedKeys}`,
    'PermitRootLogin yes',
    'PubkeyAuthentication yes',
    'PasswordAuthentication no',
    'KbdInteractiveAuthentication no',
    'UsePAM no',
    'StrictModes no',
    'PrintMotd no',
    'PrintLastLog no',
    // a rollout opens sessions to every host at once, and tests run several
    'MaxStartups 200',
    'MaxSessions 200',
    'LogLevel ERROR',
    'Subsystem sftp internal-sftp',
    // a balancer host: deploy reaches its admin socket as `ssh -L local:/run/haproxy/admin.sock` does
    ...(host.streamLocal ? ['AllowStreamLocalForwarding local'] : []),
    `SetEnv ${[`PATH=${[...new Set(pathVar)].join(':')}`, ...extraEnv].join(' ')}`,
    '',
  ].join('\n');
}

/** One client key for the orchestrator, one host key per host (lb-b's too), a known_hosts naming them. */
export async function writeSshFiles(layout: LabLayout): Promise<void> {
  const files = labFiles(layout.workDir);
  const clientPub = await keygen(files.clientKey, 'handoff-lab-client');
  await writeFile(files.authorizedKeys, `${clientPub}\n`);
  const known: string[] = [];
  for (const host of sshHosts(layout)) {
    const dir = files.hostDir(host.name);
    const hostKey = path.join(dir, 'ssh_host_ed25519_key');
    const pub = await keygen(hostKey, `handoff-lab-${host.name}`);
    const [type, key] = pub.split(' ');
    known.push(`${knownHostsName(host)} ${type} ${key}`);
    await writeFile(path.join(dir, 'sshd_config'), sshdConfig(layout, host, hostKey));
    await writeFile(path.join(dir, 'hosts'), hostsFile(layout, host));
  }
  await writeFile(files.knownHosts, `${known.join('\n')}\n`);
}

/**
 * Each host's private /etc/hosts: its own name and `selfName` resolve to its
 * own address (a balancer host, not one of the fleet's, gets its own name only).
 */
export function hostsFile(layout: LabLayout, self: LabHostPlan): string {
  const lines = ['127.0.0.1 localhost', '::1 localhost ip6-localhost ip6-loopback'];
  for (const h of layout.hosts) {
    lines.push(h === self ? `${h.address} ${h.name} ${layout.selfName}` : `${h.address} ${h.name}`);
  }
  if (!layout.hosts.includes(self)) lines.push(`${self.address} ${self.name}`);
  return `${lines.join('\n')}\n`;
}
