import { writeFileSync, mkdirSync, renameSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import { DRAINING_HEADER } from './headers.js';
import { writeAtomically } from './heartbeat.js';

/**
 * The service's own count of its answers by status class, for a canary
 * judged from the service itself (rollout.canary.source: service): any
 * balancer, even one that counts nothing per host, no new port. Each process writes its counts to
 * `<host.state>/responses/<pid>-<started>.json` about once a second and at
 * exit; the host's agent sums the files. The hot path is two additions and
 * one listener: nothing is written per request.
 */

export const RESPONSES_DIR = 'responses';

/** the file one process writes; `time_ms` is the summed response time */
export interface ResponseCountsFile {
  readonly v: 1;
  readonly pid: number;
  /** ms since the epoch the counting process started counting */
  readonly started: number;
  readonly at: number;
  readonly requests: number;
  readonly classes: readonly [number, number, number, number, number];
  readonly time_ms: number;
}

export interface ResponseCounterOptions {
  /** host.state; default HANDOFF_STATE. Without either, counts stay in memory */
  readonly stateDir?: string;
  /** between writes; default 1000 ms */
  readonly intervalMs?: number;
  /** requests not to count, such as the health endpoints the balancer polls */
  readonly skip?: (req: IncomingMessage) => boolean;
}

type Next = (error?: unknown) => void;

export interface ResponseCounter {
  /** connect / express: `app.use(counter.middleware)` */
  readonly middleware: (req: IncomingMessage, res: ServerResponse, next: Next) => void;
  /** node:http: `http.createServer(counter.wrap(handler))` */
  wrap<R extends IncomingMessage, S extends ServerResponse>(
    handler: (req: R, res: S) => void,
  ): (req: R, res: S) => void;
  counts(): ResponseCountsFile;
  /** stop the timer and write the last counts */
  close(): void;
}

export function countResponses(options: ResponseCounterOptions = {}): ResponseCounter {
  const started = Date.now();
  const classes: [number, number, number, number, number] = [0, 0, 0, 0, 0];
  let requests = 0;
  let timeMs = 0;
  const counts = (): ResponseCountsFile => ({
    v: 1,
    pid: process.pid,
    started,
    at: Date.now(),
    requests,
    classes: [...classes],
    time_ms: Math.round(timeMs),
  });
  const track = (req: IncomingMessage, res: ServerResponse): void => {
    if (options.skip?.(req)) return;
    const t0 = performance.now();
    res.once('finish', () => {
      // a draining 503 is the handshake working, not the release failing
      if (res.getHeader(DRAINING_HEADER) !== undefined) return;
      requests += 1;
      const c = Math.floor(res.statusCode / 100) - 1;
      if (c >= 0 && c < 5) classes[c] = (classes[c] ?? 0) + 1;
      timeMs += performance.now() - t0;
    });
  };
  const stop = persist(options, started, counts);
  return {
    middleware: (req, res, next) => {
      track(req, res);
      next();
    },
    wrap: (handler) => (req, res) => {
      track(req, res);
      handler(req, res);
    },
    counts,
    close: stop,
  };
}

function persist(
  options: ResponseCounterOptions,
  started: number,
  counts: () => ResponseCountsFile,
): () => void {
  const stateDir = options.stateDir ?? (process.env.HANDOFF_STATE || undefined);
  if (stateDir === undefined) return () => undefined;
  const file = path.join(stateDir, RESPONSES_DIR, `${process.pid}-${started}.json`);
  let written = -1;
  const write = (): void => {
    const now = counts();
    if (now.requests === written) return;
    written = now.requests;
    // a full tmpfs costs this second's figure, never a request
    writeAtomically(file, JSON.stringify(now)).catch(() => (written = -1));
  };
  const timer = setInterval(write, options.intervalMs ?? 1000);
  timer.unref();
  // the last answers before a stop belong to the old release's count
  const atExit = (): void => {
    try {
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(`${file}.exit`, JSON.stringify(counts()));
      renameSync(`${file}.exit`, file);
    } catch {
      // nowhere to write: the agent reads the last second's figure
    }
  };
  process.once('exit', atExit);
  return () => {
    clearInterval(timer);
    process.removeListener('exit', atExit);
    atExit();
  };
}
