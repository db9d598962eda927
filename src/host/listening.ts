import { readFile } from 'node:fs/promises';
import { UsageError } from '../errors.js';
import { isMissing } from './layout.js';

/**
 * Whether something on this host listens where a balancer will send a target's
 * traffic: the kernel's own table of TCP sockets (/proc/net/tcp and tcp6), no
 * process started, nothing connected to. Preflight asks before a host is
 * drained: a balancer target on a port nothing listens on (a typo in a
 * `targets:` map) never comes back healthy.
 */

/** One LISTEN socket: its local address (dotted IPv4, `::`, or eight hex groups) and port. */
export interface ListenSocket {
  readonly address: string;
  readonly port: number;
}

/** st 0A is TCP_LISTEN (include/net/tcp_states.h) */
const LISTEN = '0A';

/**
 * The LISTEN sockets of one /proc/net/tcp (family 4) or tcp6 (family 6) text.
 * Addresses are printed as 32-bit words in the host's byte order, taken here
 * as little-endian (x86-64, arm64); ports in network order.
 */
export function parseProcNetTcp(text: string, family: 4 | 6): ListenSocket[] {
  const sockets: ListenSocket[] = [];
  for (const line of text.split('\n').slice(1)) {
    const [, local, , st] = line.trim().split(/\s+/);
    if (st !== LISTEN || !local) continue;
    const [hex, port] = local.split(':');
    if (hex === undefined || port === undefined || !/^[0-9A-Fa-f]{4}$/.test(port)) continue;
    const bytes = addressBytes(hex, family);
    if (bytes) sockets.push({ address: formatAddress(bytes), port: parseInt(port, 16) });
  }
  return sockets;
}

function addressBytes(hex: string, family: 4 | 6): number[] | undefined {
  if (!new RegExp(`^[0-9A-Fa-f]{${family === 4 ? 8 : 32}}$`).test(hex)) return undefined;
  const bytes: number[] = [];
  for (let word = 0; word < hex.length; word += 8) {
    const w = hex.slice(word, word + 8);
    for (let b = 3; b >= 0; b--) bytes.push(parseInt(w.slice(b * 2, b * 2 + 2), 16));
  }
  return bytes;
}

function formatAddress(bytes: readonly number[]): string {
  if (bytes.length === 4) return bytes.join('.');
  if (bytes.every((b) => b === 0)) return '::';
  // ::ffff:a.b.c.d, an IPv4 address on an IPv6 socket
  if (bytes.slice(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff)
    return bytes.slice(12).join('.');
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2)
    groups.push((((bytes[i] ?? 0) << 8) | (bytes[i + 1] ?? 0)).toString(16));
  return groups.join(':');
}

/** `port`, or `ipv4:port`: where a balancer sends a target's traffic */
export interface ListenTarget {
  readonly address?: string;
  readonly port: number;
}

export function parseListenTarget(text: string): ListenTarget {
  const match = /^(?:(\d{1,3}(?:\.\d{1,3}){3}):)?(\d{1,5})$/.exec(text);
  const port = Number(match?.[2]);
  if (!match || port < 1 || port > 65535)
    throw new UsageError(`--targets ${JSON.stringify(text)}: expected PORT or IPV4:PORT`);
  return match[1] === undefined ? { port } : { address: match[1], port };
}

/** A socket on the port, bound to that address or to every address (0.0.0.0, ::). */
export function listensOn(sockets: readonly ListenSocket[], target: ListenTarget): boolean {
  return sockets.some(
    (s) =>
      s.port === target.port &&
      (target.address === undefined ||
        s.address === target.address ||
        s.address === '0.0.0.0' ||
        s.address === '::'),
  );
}

/**
 * Each target (`[ipv4:]port`) → whether a LISTEN socket takes its traffic;
 * empty when the host has no /proc/net/tcp to read (not Linux): cannot tell.
 */
export async function listening(
  targets: readonly string[],
  read: (path: string) => Promise<string> = (path) => readFile(path, 'utf8'),
): Promise<Record<string, boolean>> {
  const parsed = targets.map((t) => [t, parseListenTarget(t)] as const);
  const table = async (path: string, family: 4 | 6): Promise<ListenSocket[] | undefined> => {
    try {
      return parseProcNetTcp(await read(path), family);
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
  };
  const [v4, v6] = await Promise.all([table('/proc/net/tcp', 4), table('/proc/net/tcp6', 6)]);
  if (v4 === undefined && v6 === undefined) return {};
  const sockets = [...(v4 ?? []), ...(v6 ?? [])];
  return Object.fromEntries(parsed.map(([text, target]) => [text, listensOn(sockets, target)]));
}
