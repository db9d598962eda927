import { HostUnreachableError } from '../errors.js';
import type { HostKeyVerdict } from './known-hosts.js';

/** Where a connection attempt went, for one clear line when it fails. */
export interface Endpoint {
  /** the host name from deploy.yml: every error starts with it */
  readonly host: string;
  /** `bastion b.example.com: ` when the failing hop is the bastion, else '' */
  readonly hop: string;
  readonly address: string;
  readonly port: number;
  readonly user: string;
  readonly knownHostsPath: string;
  readonly connectTimeout: number;
  readonly authDescription: string;
}

export function hostKeyRefused(
  at: Endpoint,
  token: string,
  verdict: Exclude<HostKeyVerdict, { ok: true }>,
): HostUnreachableError {
  const path = at.knownHostsPath;
  const detail =
    verdict.reason === 'unknown'
      ? `host key for ${token} is unknown: offered ${verdict.fingerprint}; compare it with 'ssh-keygen -lf' on the host, then add this line to ${path}: ${verdict.line}`
      : verdict.reason === 'changed'
        ? `host key for ${token} has CHANGED (possible man-in-the-middle attack, or the host was rebuilt): offered ${verdict.fingerprint}, which ${path} does not list; if the change is expected, run 'ssh-keygen -R "${token}" -f ${path}' and add: ${verdict.line}`
        : `host key for ${token} (${verdict.fingerprint}) is marked @revoked in ${path}; refusing to connect`;
  return new HostUnreachableError(at.host, `${at.hop}${detail}`);
}

/** ssh2 and socket errors before the session is ready, as one actionable line. */
export function connectFailed(at: Endpoint, error: Error): HostUnreachableError {
  const code = (error as NodeJS.ErrnoException).code;
  const level = (error as { level?: string }).level;
  const where = `${at.address}:${at.port}`;
  let detail: string;
  let network = true;
  if (code === 'ECONNREFUSED')
    detail = `connection refused at ${where}; check that sshd runs there and that the SSH port is right`;
  else if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    // a name that does not resolve is a typo far more often than a dead host
    network = false;
    detail = `cannot resolve ${at.address}; check the host's address in deploy.yml`;
  } else if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH')
    detail = `no route to ${where}; check the address and the network path`;
  else if (level === 'client-timeout' || code === 'ETIMEDOUT')
    detail = `no SSH handshake with ${where} within ${at.connectTimeout / 1000}s; check the address, firewalls and ssh.connect_timeout`;
  else if (level === 'client-authentication') {
    network = false;
    detail = `authentication as '${at.user}' at ${where} failed with ${at.authDescription}; check ssh.user and that the public key is in the host's authorized_keys`;
  } else if (code === 'ECONNRESET' || /before handshake/i.test(error.message))
    detail = `${where} closed the connection before the SSH handshake; check that it is an SSH server and that sshd accepts us (MaxStartups, AllowUsers)`;
  else detail = `cannot connect to ${where}: ${error.message}`;
  return new HostUnreachableError(at.host, `${at.hop}${detail}`, { network });
}

export function connectionLost(host: string, what: string): HostUnreachableError {
  return new HostUnreachableError(
    host,
    `the SSH connection dropped ${what}; check that the host is up and retry`,
    { network: true },
  );
}
