import type { Clock } from '../../clock.js';
import type { Config } from '../../config/types.js';
import { runChecks } from './run.js';

/**
 * One pass of the host's HTTP checks whose answers nobody reads. A process's
 * first HTTP request costs about 10 ms more than the next (Node compiles its
 * client as it first runs), and without this the first is verify's, right
 * after start, on every host's path. A rollout's session runs it once the
 * host is drained, while the rollout waits for the balancer to take the host
 * out: the services still running answer it as they answer the balancer's
 * own checks (docs/benchmarks.md). It starts once this turn of the event
 * loop is over, so the drain's answer goes out first (a request's first
 * build is synchronous work); the signal ends it with the session.
 */
export async function warmHttpChecks(
  config: Config,
  clock: Clock,
  signal: AbortSignal,
): Promise<void> {
  const http = config.services.filter((s) => s.check.kind === 'http');
  if (http.length === 0) return;
  await new Promise((resolve) => setImmediate(resolve));
  if (signal.aborted) return;
  // its answers are nobody's, and so is a failure to even ask
  await runChecks(http, { clock, state: config.host.state, signal }).catch(() => undefined);
}
