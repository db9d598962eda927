import net from 'node:net';
import type { Duplex } from 'node:stream';
import { BlockedError, OperationError } from '../../errors.js';
import { describeAddress, type SocketAddress } from './address.js';
import { excerpt } from '../../safe-text.js';

export interface RuntimeApiOptions {
  /** how long one command may take, connect to close */
  readonly timeoutMs?: number;
  /** how often a held drain looks for a reload (reload-watch.ts); default 250 ms */
  readonly reloadPollMs?: number;
}

const defaultTimeoutMs = 5_000;
// a stats dump of a big config is a few hundred kB; anything far beyond is not haproxy
const maxResponseBytes = 16 * 1024 * 1024;

/**
 * Sends one command on a fresh connection and returns everything haproxy wrote
 * before closing it. One command per connection: a non-interactive session
 * ends after its command, so there is no prompt to parse and no state to leak
 * between calls.
 */
export function runCommand(
  address: SocketAddress,
  command: string,
  options: RuntimeApiOptions = {},
): Promise<string> {
  const timeoutMs = options.timeoutMs ?? defaultTimeoutMs;
  if (address.kind === 'ssh')
    return address.open().then((stream) => converse(address, stream, command, timeoutMs));
  const socket =
    address.kind === 'unix'
      ? net.createConnection({ path: address.path })
      : net.createConnection({ host: address.host, port: address.port });
  return converse(address, socket, command, timeoutMs);
}

/** The command written once the stream is open, and everything read until haproxy closes it. */
function converse(
  address: SocketAddress,
  socket: Duplex,
  command: string,
  timeoutMs: number,
): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const fail = (error: Error): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      reject(error);
    };
    // quiet for timeoutMs (as net's setTimeout): an SSH channel has no timeout of its own
    let timer: NodeJS.Timeout | undefined;
    const quiet = (): void => {
      clearTimeout(timer);
      timer = setTimeout(
        () =>
          fail(
            new BlockedError(
              `haproxy socket ${describeAddress(address)} did not answer '${command}' within ${timeoutMs} ms: check that haproxy is running and not overloaded`,
            ),
          ),
        timeoutMs,
      );
    };
    quiet();
    if (socket instanceof net.Socket && socket.connecting)
      socket.on('connect', () => socket.end(`${command}\n`));
    else socket.end(`${command}\n`);
    socket.on('data', (chunk: Buffer) => {
      quiet();
      size += chunk.length;
      if (size > maxResponseBytes) {
        fail(garbage(address, command, 'more than 16 MB'));
        return;
      }
      chunks.push(chunk);
    });
    socket.on('error', (error: NodeJS.ErrnoException) => fail(connectError(address, error)));
    socket.on('close', () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(Buffer.concat(chunks).toString('utf8'));
    });
  });
}

/** One line naming the socket and what to check, for each way a connection fails. */
export function connectError(address: SocketAddress, error: NodeJS.ErrnoException): Error {
  if (address.kind === 'ssh' && error.code === undefined)
    return new BlockedError(
      `haproxy socket ${describeAddress(address)}: ${error.message}: check the SSH connection to ${address.host}`,
    );
  const where = `haproxy socket ${describeAddress(address)}`;
  switch (error.code) {
    case 'ENOENT':
      return new BlockedError(
        `${where} does not exist: check that haproxy is running and that its global section has 'stats socket ${describeAddress(address)} level admin'`,
      );
    case 'ECONNREFUSED':
      return new BlockedError(
        address.kind !== 'tcp'
          ? `${where} refused the connection (a stale socket file: haproxy is not running?): check haproxy and its 'stats socket' line`
          : `${where} refused the connection: check that haproxy is running with 'stats socket ipv4@${address.host}:${address.port} level admin'`,
      );
    case 'EACCES':
    case 'EPERM':
      return new BlockedError(
        `${where}: permission denied: run as a user allowed by its 'stats socket … mode/user/group' settings`,
      );
    case 'ENOTSOCK':
      return new BlockedError(`${where} is not a socket: check balancer.socket`);
    case 'ECONNRESET':
    case 'EPIPE':
      return new OperationError(
        `${where} closed the connection mid-command: check haproxy's logs (was it reloading?)`,
      );
    default:
      return new BlockedError(
        `${where}: ${error.code ?? error.message}: check that haproxy is running and balancer.socket is right`,
      );
  }
}

export function garbage(address: SocketAddress, command: string, answer: string): OperationError {
  const shown = excerpt(answer, 80);
  return new OperationError(
    `haproxy socket ${describeAddress(address)} answered ${JSON.stringify(shown)} to '${command}', which is not haproxy's runtime API: check that balancer.socket points at its 'stats socket'`,
  );
}
