import { formatMs } from '../timing/duration.js';
import type { HostOutcome, RolloutDeps } from './types.js';

/**
 * Under slow start a host back in rotation takes a growing share of requests
 * for `slow_start`: until then it is not full capacity, so the next wave,
 * which drains more, waits for the ramp to end.
 */
export async function awaitSlowStart(deps: RolloutDeps, rampEnds: number): Promise<void> {
  const left = rampEnds - deps.clock.now();
  if (left <= 0) return;
  deps.log.emit({
    level: 'info',
    event: 'slow-start',
    message: `slow start: waiting ${formatMs(left)} for the previous wave to ramp up before draining the next`,
  });
  try {
    await deps.clock.sleep(left, deps.signal);
  } catch {
    // an interrupt ends the wait, not the rollout: the caller stops before the
    // next wave and reports the waves already deployed
  }
}

/** When the last host of a wave that came back in rotation ends its slow start. */
export function rampEnd(
  results: readonly HostOutcome[],
  startedAt: number,
  slowStart: number,
): number {
  if (slowStart <= 0) return 0;
  const backAt = results.flatMap((r) =>
    r.steps.filter((s) => s.step === 'await-in' && s.ok).map((s) => s.offset_ms + s.duration_ms),
  );
  return backAt.length > 0 ? startedAt + Math.max(...backAt) + slowStart : 0;
}
