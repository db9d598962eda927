import { systemClock } from '../../clock.js';
import type { CheckConfig } from '../../config/types.js';
import { tcpCheck } from './tcp.js';

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
 * Does something accept connections at the address? The tcp check's connect
 * (tcp.ts), read for a stop: `closed` only for a refusal or a reset, since a
 * timeout or a name that does not resolve proves nothing, and a stop is never
 * called proven on no answer.
 */
export async function probeListening(
  address: Address,
  timeoutMs: number,
): Promise<'listening' | 'closed' | 'unknown'> {
  const r = await tcpCheck(
    { kind: 'tcp', host: address.host, port: address.port, timeout: timeoutMs },
    // latency is not asked for here; state and service are not read by a tcp check
    { clock: systemClock, state: '', service: '' },
  );
  if (r.ok) return 'listening';
  return r.code === 'refused' || r.code === 'reset' ? 'closed' : 'unknown';
}
