import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import { watchDrainMarker } from './drain-marker.js';
import { DRAINING_HEADER, RELEASE_HEADER, VERIFIED_HEADER, VERIFY_HEADER } from './headers.js';

export type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** A background check: passes when it returns anything but `false` and does not throw. */
export interface BackgroundCheck {
  readonly name: string;
  run(): Promise<boolean | void> | boolean | void;
}

export interface HealthOptions {
  /** host.state: holds the drain marker `draining` and `marks/` */
  readonly stateDir: string;
  readonly checks?: readonly BackgroundCheck[];
  /** how often the background checks run; default 1000 ms */
  readonly checkEveryMs?: number;
  /** how stale the drain marker's answer may be; default 250 ms */
  readonly drainCacheMs?: number;
  /** named in `x-release` on every answer; default the RELEASE environment variable */
  readonly release?: string;
}

export interface Health {
  /** 200 once the checks have passed one time, 503 before */
  readonly startup: Handler;
  /** 200 while the process answers at all */
  readonly live: Handler;
  /** 503 `draining` while the marker exists, else 200 when the last checks passed */
  readonly ready: Handler;
  /** the background checks' verdict, without the drain marker */
  checksPass(): boolean;
  isDraining(): Promise<boolean>;
  /** run the checks now instead of waiting for the next round */
  runChecks(): Promise<boolean>;
  /** stop timers; handlers keep answering */
  close(): void;
}

interface Answer {
  readonly draining?: boolean;
  readonly verified?: boolean;
}

function answerWith(release: string | undefined) {
  return (res: ServerResponse, status: number, body: string, how: Answer = {}): void => {
    const headers: Record<string, string> = {
      'content-type': 'text/plain',
      'cache-control': 'no-store',
    };
    // the orchestrator tells "draining on purpose" from "broken" by this word or header
    if (how.draining) headers[DRAINING_HEADER] = '1';
    if (how.verified) headers[VERIFIED_HEADER] = '1';
    // which release answers: a rollout's verify knows the new one, not an old process, is up
    if (release) headers[RELEASE_HEADER] = release;
    res.writeHead(status, headers);
    res.end(`${body}\n`);
  };
}

export function createHealth(options: HealthOptions): Health {
  const checks = options.checks ?? [];
  const drain = watchDrainMarker(path.join(options.stateDir, 'draining'), {
    maxAgeMs: options.drainCacheMs ?? 250,
  });
  const answer = answerWith(options.release ?? process.env.RELEASE);
  let lastPass = checks.length === 0;
  let started = lastPass;

  const runChecks = async (): Promise<boolean> => {
    const results = await Promise.all(
      checks.map(async (c) => {
        try {
          return (await c.run()) !== false;
        } catch {
          return false;
        }
      }),
    );
    lastPass = results.every(Boolean);
    if (lastPass) started = true;
    return lastPass;
  };

  let timer: NodeJS.Timeout | undefined;
  if (checks.length > 0) {
    void runChecks();
    timer = setInterval(() => void runChecks(), options.checkEveryMs ?? 1000);
    timer.unref();
  }

  const readiness = (res: ServerResponse, how: Answer): void => {
    if (lastPass) answer(res, 200, 'ok', how);
    else answer(res, 503, started ? 'failing' : 'starting', how);
  };
  const ready: Handler = (req, res) => {
    drain.isDraining().then(
      (draining) => {
        // handoff's own check asks for the truth even while drained, so a broken
        // release fails its verify before the balancer ever sees it
        if (req.headers[VERIFY_HEADER] === '1') readiness(res, { draining, verified: true });
        else if (draining) answer(res, 503, 'draining', { draining: true });
        else readiness(res, {});
      },
      () => answer(res, 500, 'error'),
    );
  };

  return {
    startup: (_req, res) => (started ? answer(res, 200, 'started') : answer(res, 503, 'starting')),
    live: (_req, res) => answer(res, 200, 'alive'),
    ready,
    checksPass: () => lastPass,
    isDraining: () => drain.isDraining(),
    runChecks,
    close: () => {
      if (timer) clearInterval(timer);
    },
  };
}
