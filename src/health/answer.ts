import type { ServerResponse } from 'node:http';
import { DRAINING_HEADER, RELEASE_HEADER, VERIFIED_HEADER } from './headers.js';

export interface AnswerFlags {
  readonly draining?: boolean;
  readonly verified?: boolean;
}

export type Answer = (
  res: ServerResponse,
  status: number,
  body: object,
  flags?: AnswerFlags,
) => void;

/**
 * Every health answer: JSON, never cached by a proxy in between, naming the
 * release that answers (a rollout's verify knows the new process is up, not
 * an old one). Bodies hold only statuses and codes: a health endpoint is
 * often public, and an error message can carry a connection string.
 */
export function answerWith(release: string | undefined): Answer {
  return (res, status, body, flags = {}) => {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'cache-control': 'no-store',
    };
    // the orchestrator tells "draining on purpose" from "broken" by this header (or the word)
    if (flags.draining) headers[DRAINING_HEADER] = '1';
    if (flags.verified) headers[VERIFIED_HEADER] = '1';
    if (release) headers[RELEASE_HEADER] = release;
    res.writeHead(status, headers);
    res.end(`${JSON.stringify(body)}\n`);
  };
}
