import type { Clock } from '../clock.js';
import type { Config, ServiceConfig } from '../config/types.js';
import type { ServiceVerdict, VerifyOptions, VerifyReport } from '../protocol/results.js';
import { runCheck, type CheckResult } from './checks/run.js';
import type { Runtime } from './runtime/runtime.js';

/** Between rounds of checks: quick enough to finish soon after a service is up. */
const ROUND_EVERY = 250;

export function counts(result: CheckResult, allowDraining: boolean): boolean {
  // while drained, a 503 that says "draining" is the service answering as it should
  return result.ok || (allowDraining && result.draining === true);
}

/**
 * Every service on this host must pass `successes` times in a row, within
 * `timeoutMs`. Services are checked concurrently each round; a service that
 * reached its streak is not checked again. The report never holds a response
 * body, only codes and latencies.
 */
export async function verifyServices(
  config: Config,
  options: VerifyOptions & {
    readonly clock: Clock;
    readonly runtime?: Runtime;
    /** the release that should answer, for `expect_release` checks */
    readonly release?: string;
    readonly signal?: AbortSignal;
  },
): Promise<VerifyReport> {
  const { clock } = options;
  const started = clock.now();
  const streak = new Map<string, number>();
  const last = new Map<string, CheckResult>();
  const pending = (): ServiceConfig[] =>
    config.services.filter((s) => (streak.get(s.name) ?? 0) < options.successes);
  for (;;) {
    const round = pending();
    await Promise.all(
      round.map(async (s) => {
        const r = await runCheck(s.check, {
          clock,
          state: config.host.state,
          service: s.name,
          ...(options.runtime ? { runtime: options.runtime } : {}),
          ...(options.release ? { release: options.release } : {}),
          ...(options.releaseOptional ? { releaseOptional: true } : {}),
          ...(options.signal ? { signal: options.signal } : {}),
        });
        last.set(s.name, r);
        streak.set(s.name, counts(r, options.allowDraining) ? (streak.get(s.name) ?? 0) + 1 : 0);
      }),
    );
    const elapsed = clock.now() - started;
    if (pending().length === 0 || elapsed >= options.timeoutMs) break;
    await clock.sleep(Math.min(ROUND_EVERY, options.timeoutMs - elapsed), options.signal);
  }
  const services: ServiceVerdict[] = config.services.map((s) => {
    const r = last.get(s.name);
    const passes = streak.get(s.name) ?? 0;
    return {
      name: s.name,
      ok: passes >= options.successes,
      code: r?.code ?? 'not-checked',
      latency_ms: r?.latency_ms ?? 0,
      ...(r?.draining ? { draining: true } : {}),
      passes,
      ...(r?.release ? { release: r.release } : {}),
      ...(r?.code === 'release-mismatch' && r.detail ? { detail: r.detail } : {}),
    };
  });
  return { ok: services.every((s) => s.ok), services, elapsed_ms: clock.now() - started };
}
