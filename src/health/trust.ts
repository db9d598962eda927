import type { IncomingMessage } from 'node:http';
import path from 'node:path';
import { VERIFY_HEADER, VERIFY_TOKEN_FILE, VERIFY_TOKEN_HEADER } from './headers.js';
import { watchVerifyToken } from './verify-token.js';

/**
 * Who asks: handoff's own check (`x-handoff-verify: 1`) gets the real
 * readiness while drained and every detail. On a `statusOnly` listener —
 * public, where anyone can send that header — only a request that also
 * carries the token from host.state does. A balancer's probe carries neither
 * and costs nothing here.
 */
export type Trust = (req: IncomingMessage) => boolean | Promise<boolean>;

export function trustWith(
  statusOnly: boolean,
  stateDir: string | undefined,
  now: () => number,
): Trust {
  const asks = (req: IncomingMessage): boolean => req.headers[VERIFY_HEADER] === '1';
  if (!statusOnly) return asks;
  // without host.state there is no token: nobody gets more than the status
  if (!stateDir) return () => false;
  const token = watchVerifyToken(path.join(stateDir, VERIFY_TOKEN_FILE), { maxAgeMs: 1000, now });
  return (req) => {
    if (!asks(req)) return false;
    const given = req.headers[VERIFY_TOKEN_HEADER];
    return token.matches(typeof given === 'string' ? given : undefined);
  };
}
