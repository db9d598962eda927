import type { Server } from 'node:http';
import { systemClock, type Clock } from '../clock.js';
import { drainDelayMs } from './drain-delay.js';

/** the part of a Health that a shutdown uses */
interface Drainable {
  setDraining(draining: boolean): void;
}

export interface ShutdownOptions {
  /** default SIGTERM and SIGINT */
  readonly signals?: readonly NodeJS.Signals[];
  /** after this, connections still open are cut; keep it under the runtime's stop_timeout */
  readonly graceMs?: number;
  /** called once every connection is gone (or the grace ran out); default process.exit */
  readonly exit?: (code: number) => void;
  /** before the listener closes: stop workers, flush logs */
  readonly beforeClose?: () => void | Promise<void>;
  /** answers ready 503 `draining` from the signal on */
  readonly health?: Drainable;
  /**
   * keep serving this long after the signal before closing, so the balancer
   * sees the 503 and takes the host out first; default from the environment
   * the runtime exports (see drainDelayMs)
   */
  readonly drainDelayMs?: number;
  readonly clock?: Clock;
}

export interface GracefulShutdown {
  /** what a signal triggers; resolves when the server has closed */
  shutdown(): Promise<void>;
  /** remove the signal handlers */
  dispose(): void;
}

/**
 * On SIGTERM: stop accepting, let in-flight requests finish, close keep-alive
 * connections as soon as they are idle, then exit. `server.close()` alone would
 * wait for every idle keep-alive socket to time out (65 s behind a balancer),
 * and cutting them all at once would reset requests that are mid-flight.
 */
export function gracefulShutdown(server: Server, options: ShutdownOptions = {}): GracefulShutdown {
  const signals = options.signals ?? ['SIGTERM', 'SIGINT'];
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const graceMs = options.graceMs ?? 30_000;
  let done: Promise<void> | undefined;

  const shutdown = (): Promise<void> => {
    done ??= (async () => {
      options.health?.setDraining(true);
      const delay = options.drainDelayMs ?? drainDelayMs(process.env, graceMs);
      // a restart no rollout announced: the balancer still thinks this host is fine
      if (delay > 0) await (options.clock ?? systemClock).sleep(delay);
      await options.beforeClose?.();
      // a request that still arrives on an open connection is answered, then the socket closes
      server.prependListener('request', (_req, res) => {
        if (!res.headersSent) res.setHeader('connection', 'close');
      });
      const closed = new Promise<number>((resolve) => server.close(() => resolve(0)));
      server.closeIdleConnections();
      const sweep = setInterval(() => server.closeIdleConnections(), 100);
      let timer: NodeJS.Timeout | undefined;
      const graceOver = new Promise<number>((resolve) => {
        timer = setTimeout(() => {
          server.closeAllConnections();
          resolve(1);
        }, graceMs);
      });
      const code = await Promise.race([closed, graceOver]);
      clearInterval(sweep);
      clearTimeout(timer);
      exit(code);
    })();
    return done;
  };

  const onSignal = (): void => void shutdown();
  for (const s of signals) process.on(s, onSignal);
  return {
    shutdown,
    dispose: () => {
      for (const s of signals) process.off(s, onSignal);
    },
  };
}
