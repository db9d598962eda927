import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import { systemClock } from '../clock.js';
import { answerWith } from './answer.js';
import { createCheckSet } from './check-set.js';
import { watchDrainMarker, type DrainWatch } from './drain-marker.js';
import type { Handler, Health, HealthOptions } from './health-api.js';
import { VERIFY_HEADER } from './headers.js';
import { LagWindow, sampleLag } from './lag.js';
import { readyStatus } from './verdict.js';
import { Watchdogs } from './watchdogs.js';

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
  // with no checks there is nothing to wait for; this counts only with autoStart
  let passedOnce = (options.checks ?? []).length === 0;
  // a service that warms up calls markStarted() when it has: ready before it would take
  // traffic cold, the naive server's mistake; "first passing round" is asked for by name
  const autoStart = options.autoStart ?? options.manualStart === false;
  const started = (): boolean => markedStarted || (autoStart && passedOnce);
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
      // a second start() would run every check twice per interval
      if (stops.length > 0) return;
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
