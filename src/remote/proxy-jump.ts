import type { Duplex } from 'node:stream';
import type { Client } from 'ssh2';
import { HostUnreachableError, UsageError } from '../errors.js';

export interface JumpHost {
  readonly user: string;
  readonly address: string;
  readonly port: number;
}

/**
 * `[user@]host[:port]` as OpenSSH's ProxyJump takes it (IPv6 as `[::1]:port`).
 * The port defaults to 22, not to ssh.port: the bastion is its own machine.
 * One hop only: a chain `a,b` is refused rather than half-followed.
 */
export function parseProxyJump(spec: string, defaultUser: string): JumpHost {
  const match = /^(?:([^@\s,]+)@)?(?:\[([^\]\s,]+)\]|([^:@\s,[\]]+))(?::(\d{1,5}))?$/.exec(spec);
  const address = match?.[2] ?? match?.[3];
  const port = match?.[4] === undefined ? 22 : Number(match[4]);
  if (!match || address === undefined || port < 1 || port > 65535)
    throw new UsageError(
      `ssh.proxy_jump '${spec}' is not of the form [user@]host[:port] (one jump host; chains are not supported)`,
    );
  return { user: match[1] ?? defaultUser, address, port };
}

/** A TCP stream from the bastion to the target, to run the target's SSH session over. */
export function forwardThrough(
  bastion: Client,
  host: string,
  jump: string,
  address: string,
  port: number,
): Promise<Duplex> {
  return new Promise((resolve, reject) => {
    const refuse = (error: Error): void =>
      reject(
        new HostUnreachableError(
          host,
          `bastion ${jump} could not open a connection to ${address}:${port} (${error.message}); check that the bastion reaches the host and allows TCP forwarding`,
        ),
      );
    try {
      bastion.forwardOut('127.0.0.1', 0, address, port, (error, stream) =>
        error ? refuse(error) : resolve(stream),
      );
    } catch (error) {
      refuse(error as Error);
    }
  });
}
