import type { Duplex } from 'node:stream';
import type { Client } from 'ssh2';
import { systemClock, type Clock } from '../clock.js';
import type { HostConfig, SshConfig } from '../config/types.js';
import { knownHostsFiles, type KnownHostsFiles } from './known-hosts-file.js';
import { forwardThrough, parseProxyJump } from './proxy-jump.js';
import { resolveAuth } from './ssh-auth.js';
import { openClient, type OpenOptions } from './ssh-client.js';
import { SshTransport } from './ssh-transport.js';

export { SshTransport };

export interface ConnectOptions {
  readonly clock?: Clock;
  /** where SSH_AUTH_SOCK is read from; the CLI passes process.env */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** ms between keepalives; three unanswered ones drop the connection */
  readonly keepaliveInterval?: number;
  /** where known_hosts is read from once per file; the process's own by default */
  readonly knownHostsFiles?: KnownHostsFiles;
}

/**
 * Opens the one SSH connection to a host that every later call reuses (through
 * the bastion when ssh.proxy_jump is set). Every failure is a
 * HostUnreachableError naming the host and what to check.
 */
export async function connectSsh(
  host: HostConfig,
  ssh: SshConfig,
  options: ConnectOptions = {},
): Promise<SshTransport> {
  const auth = await resolveAuth(ssh, options.env ?? process.env);
  const open: OpenOptions = {
    knownHosts: await (options.knownHostsFiles ?? knownHostsFiles).read(ssh.knownHosts),
    auth,
    keepaliveInterval: options.keepaliveInterval ?? 15_000,
  };
  const port = host.sshPort ?? ssh.port;
  const endpoint = {
    host: host.name,
    hop: '',
    address: host.address,
    port,
    user: ssh.user,
    knownHostsPath: ssh.knownHosts,
    connectTimeout: ssh.connectTimeout,
    authDescription: auth.describe,
  };
  let bastion: Client | undefined;
  let sock: Duplex | undefined;
  try {
    if (ssh.proxyJump !== undefined) {
      const jump = parseProxyJump(ssh.proxyJump, ssh.user);
      const hop = `bastion ${ssh.proxyJump}: `;
      bastion = await openClient({ ...endpoint, ...jump, hop }, open);
      sock = await forwardThrough(bastion, host.name, ssh.proxyJump, host.address, port);
    }
    const client = await openClient(endpoint, { ...open, sock });
    return new SshTransport(host.name, client, bastion, options.clock ?? systemClock);
  } catch (error) {
    bastion?.end();
    throw error;
  }
}
