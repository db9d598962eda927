import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import { systemClock, type Clock } from '../clock.js';
import { answerWith } from './answer.js';
import type { BackgroundCheck } from './check-runner.js';
import { createCheckSet } from './check-set.js';
import { watchDrainMarker, type DrainWatch } from './drain-marker.js';
import { VERIFY_HEADER } from './headers.js';
import { LagWindow, sampleLag } from './lag.js';
import { readyStatus } from './verdict.js';
import { Watchdogs } from './watchdogs.js';

export type Handler = (req: IncomingMessage, res: ServerResponse) => void;

export interface HealthOptions {
  readonly checks?: readonly BackgroundCheck[];
  /** consecutive failed rounds before a check counts as failing; default 3 */
  readonly failureThreshold?: number;
  /** consecutive passed rounds before it counts as passing again; default 2 */
  readonly successThreshold?: number;
  /** ready answers 503 `overloaded` while the event loop's worst lag in the window exceeds this */
  readonly maxLagMs?: number;
  /** default 10 000 ms */
  readonly lagWindowMs?: number;
  /** job loops that must call `heartbeat(name)` within so many ms, or live answers 503 */
  readonly watchdogs?: Readonly<Record<string, number>>;
  /** host.state, holding the drain marker `draining`; default the HANDOFF_STATE environment variable */
  readonly stateDir?: string;
  /** how stale the drain marker's answer may be; default 250 ms */
  readonly drainCacheMs?: number;
  /** named in `x-release` on every answer; default the RELEASE environment variable */
  readonly release?: string;
  /** startup waits for `markStarted()`, not the first passing round */
  readonly manualStart?: boolean;
  readonly clock?: Clock;
}

export interface StartOptions {
  /** between background rounds of checks; default 1000 ms */
  readonly intervalMs?: number;
  /** between event-loop lag samples; default 100 ms */
  readonly lagIntervalMs?: number;
}

export interface Health {
  /** 503 `starting` until started, then 200 */
  readonly startup: Handler;
  /** 503 naming the stale job loops, else 200; never because of a dependency */
  readonly live: Handler;
  /** starting → draining → failing → overloaded (503) → degraded → ok (200) */
  readonly ready: Handler;
  /** routes /startup, /live, /ready and /health (= ready) */
  readonly handler: Handler;
  /** true for the paths `handler` answers */
  handles(req: IncomingMessage): boolean;
  /** background rounds of checks and lag samples; probes only read their results */
  start(options?: StartOptions): void;
  markStarted(): void;
  heartbeat(name: string): void;
  setDraining(draining: boolean): void;
  isDraining(): Promise<boolean>;
  /** one round of checks now, instead of waiting for the next */
  round(): Promise<void>;
  /** one round now; resolves with checksPass() after it */
  runChecks(): Promise<boolean>;
  /** every critical check counts as passing */
  checksPass(): boolean;
  /** stop the timers; handlers keep answering */
  close(): void;
}

const ROUTES = new Set(['/startup', '/live', '/ready', '/health']);
const pathOf = (req: IncomingMessage): string => (req.url ?? '/').split('?', 1)[0] ?? '/';

export function createHealth(options: HealthOptions = {}): Health {
  const clock = options.clock ?? systemClock;
  const checks = createCheckSet(
    options.checks ?? [],
    { failures: options.failureThreshold ?? 3, successes: options.successThreshold ?? 2 },
    clock,
  );
  const stateDir = options.stateDir ?? process.env.HANDOFF_STATE;
  const marker: DrainWatch | undefined = stateDir
    ? watchDrainMarker(path.join(stateDir, 'draining'), { maxAgeMs: options.drainCacheMs ?? 250 })
    : undefined;
  const answer = answerWith(options.release ?? process.env.RELEASE);
  const lag = new LagWindow(options.lagWindowMs ?? 10_000);
  const watchdogs = new Watchdogs(options.watchdogs ?? {}, clock.now());
  let drainingFlag = false;
  let markedStarted = false;
  // with no checks there is nothing to wait for, unless the service says it warms up
  let passedOnce = (options.checks ?? []).length === 0;
  const started = (): boolean =>
    options.manualStart ? markedStarted : markedStarted || passedOnce;
  const stops: (() => void)[] = [];

  const round = async (): Promise<void> => {
    await checks.round();
    if (checks.critical() === 'healthy') passedOnce = true;
  };
  const isDraining = async (): Promise<boolean> =>
    drainingFlag || ((await marker?.isDraining()) ?? false);
  const overloaded = (): boolean =>
    options.maxLagMs !== undefined && lag.max(clock.now()) > options.maxLagMs;

  const readiness = (res: ServerResponse, draining: boolean, verify: boolean): void => {
    const { status, code } = readyStatus({
      started: started(),
      // handoff's own check asks for the truth even while drained, so a broken
      // release fails its verify before the balancer ever sees it
      draining: draining && !verify,
      critical: checks.critical(),
      overloaded: overloaded(),
      degraded: checks.degraded(),
    });
    answer(res, code, { status, checks: checks.views() }, { draining, verified: verify });
  };
  const ready: Handler = (req, res) => {
    isDraining().then(
      (draining) => readiness(res, draining, req.headers[VERIFY_HEADER] === '1'),
      () => answer(res, 500, { status: 'error' }),
    );
  };
  const live: Handler = (_req, res) => {
    const stale = watchdogs.stale(clock.now());
    answer(res, stale.length > 0 ? 503 : 200, {
      status: stale.length > 0 ? 'stale' : 'alive',
      stale,
    });
  };
  const startup: Handler = (_req, res) =>
    started() ? answer(res, 200, { status: 'started' }) : answer(res, 503, { status: 'starting' });
  const routes: Record<string, Handler> = {
    '/startup': startup,
    '/live': live,
    '/ready': ready,
    '/health': ready,
  };

  return {
    startup,
    live,
    ready,
    handler: (req, res) => {
      const route = routes[pathOf(req)];
      if (route) route(req, res);
      else answer(res, 404, { status: 'not-found' });
    },
    handles: (req) => ROUTES.has(pathOf(req)),
    start(start = {}) {
      const intervalMs = start.intervalMs ?? 1000;
      void round();
      const timer = setInterval(() => void round(), intervalMs);
      timer.unref();
      stops.push(() => clearInterval(timer));
      if (options.maxLagMs !== undefined)
        stops.push(sampleLag(lag, start.lagIntervalMs ?? 100, clock));
    },
    markStarted: () => void (markedStarted = true),
    heartbeat: (name) => watchdogs.heartbeat(name, clock.now()),
    setDraining: (draining) => void (drainingFlag = draining),
    isDraining,
    round,
    runChecks: async () => {
      await round();
      return checks.critical() === 'healthy';
    },
    checksPass: () => checks.critical() === 'healthy',
    close: () => {
      for (const stop of stops.splice(0)) stop();
    },
  };
}
