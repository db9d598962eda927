import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import { watchDrainMarker } from './drain-marker.js';
import { startHeartbeat, type Heartbeat } from './heartbeat.js';

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
  /** worker slots whose marks this process keeps fresh */
  readonly heartbeat?: { readonly slots: readonly string[]; readonly everyMs: number };
  /** how stale the drain marker's answer may be; default 250 ms */
  readonly drainCacheMs?: number;
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

export const DRAINING_HEADER = 'x-handoff-draining';

function answer(res: ServerResponse, status: number, body: string, draining = false): void {
  const headers: Record<string, string> = {
    'content-type': 'text/plain',
    'cache-control': 'no-store',
  };
  // the orchestrator tells "draining on purpose" from "broken" by this word or header
  if (draining) headers[DRAINING_HEADER] = '1';
  res.writeHead(status, headers);
  res.end(`${body}\n`);
}

export function createHealth(options: HealthOptions): Health {
  const checks = options.checks ?? [];
  const drain = watchDrainMarker(path.join(options.stateDir, 'draining'), {
    maxAgeMs: options.drainCacheMs ?? 250,
  });
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
  const beats: Heartbeat[] = (options.heartbeat?.slots ?? []).map((slot) =>
    startHeartbeat({
      stateDir: options.stateDir,
      slot,
      everyMs: options.heartbeat?.everyMs ?? 1000,
    }),
  );

  const ready: Handler = (_req, res) => {
    drain.isDraining().then(
      (draining) => {
        if (draining) answer(res, 503, 'draining', true);
        else if (lastPass) answer(res, 200, 'ok');
        else answer(res, 503, started ? 'failing' : 'starting');
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
      for (const b of beats) b.stop();
    },
  };
}
