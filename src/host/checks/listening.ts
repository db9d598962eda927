import net from 'node:net';
import type { CheckConfig } from '../../config/types.js';
import { errorCode } from './result.js';

export interface Address {
  readonly host: string;
  readonly port: number;
}

/** Where an http or tcp check connects; undefined for checks without an address. */
export function checkAddress(check: CheckConfig): Address | undefined {
  if (check.kind === 'tcp') return { host: check.host, port: check.port };
  if (check.kind !== 'http') return undefined;
  try {
    const url = new URL(check.url);
    const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
    return { host: url.hostname.replace(/^\[|\]$/g, ''), port };
  } catch {
    return undefined;
  }
}

export function formatAddress(a: Address): string {
  return a.host.includes(':') ? `[${a.host}]:${a.port}` : `${a.host}:${a.port}`;
}

/**
 * Does something accept connections at the address? `closed` only for a
 * refusal or a reset: a timeout or a name that does not resolve proves
 * nothing, and a stop is never called proven on no answer.
 */
export function probeListening(
  address: Address,
  timeoutMs: number,
): Promise<'listening' | 'closed' | 'unknown'> {
  return new Promise((resolve) => {
    let settled = false;
    const finish = (answer: 'listening' | 'closed' | 'unknown'): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(answer);
    };
    const timer = setTimeout(() => finish('unknown'), timeoutMs);
    let socket: net.Socket;
    try {
      socket = net.connect({ host: address.host, port: address.port });
    } catch {
      clearTimeout(timer);
      resolve('unknown');
      return;
    }
    socket.on('connect', () => finish('listening'));
    socket.on('error', (error) => {
      const code = errorCode(error);
      finish(code === 'refused' || code === 'reset' ? 'closed' : 'unknown');
    });
  });
}
