import type { ServerResponse } from 'node:http';
import { DRAINING_HEADER, RELEASE_HEADER, VERIFIED_HEADER } from './headers.js';

export interface AnswerFlags {
  readonly draining?: boolean;
  readonly verified?: boolean;
  /** name the release in `x-release`; default true */
  readonly release?: boolean;
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
export function answerWith(given: string | undefined): Answer {
  const release = releaseName(given);
  return (res, status, body, flags = {}) => {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'cache-control': 'no-store',
    };
    // the orchestrator tells "draining on purpose" from "broken" by this header (or the word)
    if (flags.draining) headers[DRAINING_HEADER] = '1';
    if (flags.verified) headers[VERIFIED_HEADER] = '1';
    if (release && flags.release !== false) headers[RELEASE_HEADER] = release;
    res.writeHead(status, headers);
    res.end(`${JSON.stringify(body)}\n`);
  };
}

/**
 * The release as a header value, checked once: a value with a newline (a
 * `$(git describe)` gone wrong) would make every answer throw instead.
 */
function releaseName(value: string | undefined): string | undefined {
  const release = value?.trim();
  if (!release) return undefined;
  if (!/^[\x21-\x7e]+$/.test(release))
    throw new TypeError(
      `createHealth: release ${JSON.stringify(release)} cannot be sent as the x-release header; use printable ASCII without spaces`,
    );
  return release;
}
