import type { HealthCheckSettings } from '../../config/types.js';
import type { MainConfig } from './main-config.js';
import { nginxTime } from './main-config.js';

/**
 * nginx's numbers in the shape the timing model takes. Open-source nginx has
 * no active health checks, so there is no interval or threshold to read: a
 * drain is a reload, seen by handoff's own poll of the workers. What nginx
 * does say: how long a worker from before a reload may keep serving
 * (`worker_shutdown_timeout`, the deregistration delay: when it ends, nginx
 * closes what is still open) and how long it keeps an idle connection to a
 * host (`keepalive_timeout` in the upstream, 60 s by default, with `keepalive`).
 */
export const NGINX_POLL_MS = 2000;
/** `nginx -t` and the reload signal: new workers serve within this */
export const NGINX_RELOAD_MS = 1000;
const DEFAULT_UPSTREAM_KEEPALIVE_MS = 60_000;

export function nginxSettings(
  main: MainConfig,
  upstream: { readonly keepalive: boolean; readonly keepaliveTimeout?: string },
): HealthCheckSettings | { readonly error: string } {
  let idle: number | undefined;
  if (upstream.keepalive) {
    idle =
      upstream.keepaliveTimeout === undefined
        ? DEFAULT_UPSTREAM_KEEPALIVE_MS
        : nginxTime(upstream.keepaliveTimeout);
    if (idle === undefined)
      return { error: `keepalive_timeout ${upstream.keepaliveTimeout} is not an nginx time` };
  }
  return {
    interval: NGINX_POLL_MS,
    timeout: NGINX_RELOAD_MS,
    unhealthyThreshold: 1,
    healthyThreshold: 1,
    ...(main.workerShutdownTimeout !== undefined && {
      deregistrationDelay: main.workerShutdownTimeout,
    }),
    // without it, old workers keep a long request as long as it runs: nothing bounds the drain
    deregistrationDelaySetting: "worker_shutdown_timeout in nginx's main config",
    ...(idle !== undefined && { idleTimeout: idle }),
  };
}
