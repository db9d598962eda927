import type { Clock } from '../../clock.js';
import type { Config } from '../../config/types.js';
import { WARM_AFTER_MS } from '../../timing/step-bounds.js';
import { runChecks } from './run.js';

/**
 * One pass of the host's HTTP checks whose answers nobody reads. A process's
 * first HTTP request costs about 10 ms more than the next (Node compiles its
 * client as it first runs), and without this the first is verify's, right
 * after start, on every host's path. A rollout's `warm` step asks for it once
 * the host is drained (the `warm` operation), and the session runs it while
 * the rollout waits for the balancer to take the host out: the services still
 * running answer it as they answer the balancer's own checks
 * (docs/benchmarks.md). The signal ends it with the session.
 */
export async function warmHttpChecks(
  config: Config,
  clock: Clock,
  signal?: AbortSignal,
): Promise<void> {
  const http = config.services.filter((s) => s.check.kind === 'http');
  if (http.length === 0) return;
  // its answers are nobody's, and so is a failure to even ask, or a session that ended first
  await clock
    .sleep(WARM_AFTER_MS, signal)
    .then(() => runChecks(http, { clock, state: config.host.state, ...(signal ? { signal } : {}) }))
    .catch(() => undefined);
}
