import type { Duplex } from 'node:stream';
import { ConfigError } from '../../errors.js';

/**
 * Where the runtime API listens: a unix socket path or `tcp://host:port` on
 * the network, or a unix socket on the balancer's own host, reached through
 * an SSH connection (`open` gives a fresh stream to it per command).
 */
export type SocketAddress =
  | { readonly kind: 'unix'; readonly path: string }
  | { readonly kind: 'tcp'; readonly host: string; readonly port: number }
  | {
      readonly kind: 'ssh';
      readonly host: string;
      readonly path: string;
      readonly open: () => Promise<Duplex>;
    };

export function parseSocketAddress(socket: string): SocketAddress {
  if (!socket.startsWith('tcp://')) {
    if (socket.trim() === '') throw invalid(socket, 'it is empty');
    return { kind: 'unix', path: socket };
  }
  const rest = socket.slice('tcp://'.length);
  // [::1]:9999 as well as 127.0.0.1:9999
  const match = /^(?:\[([^\]]+)\]|([^:/]+)):(\d{1,5})$/.exec(rest);
  const host = match?.[1] ?? match?.[2];
  const port = Number(match?.[3]);
  if (host === undefined || !Number.isInteger(port) || port < 1 || port > 65535) {
    throw invalid(socket, 'write it as tcp://host:port, e.g. tcp://127.0.0.1:9999');
  }
  return { kind: 'tcp', host, port };
}

export function describeAddress(address: SocketAddress): string {
  if (address.kind === 'ssh') return `${address.path} on ${address.host} (over SSH)`;
  return address.kind === 'unix'
    ? address.path
    : `tcp://${address.host.includes(':') ? `[${address.host}]` : address.host}:${address.port}`;
}

function invalid(socket: string, why: string): ConfigError {
  return new ConfigError([
    { path: 'balancer.socket', message: `${JSON.stringify(socket)} is not a socket: ${why}` },
  ]);
}
