import type { CheckConfig } from '../../config/types.js';
import { messageOf } from '../../errors.js';
import type { CheckDeps, CheckResult } from './result.js';

type RuntimeCheck = Extract<CheckConfig, { kind: 'runtime' }>;

const codes = { running: 'ok', unhealthy: 'unhealthy', stopped: 'not-running' } as const;

/** The runtime's own view: the container runs (and its healthcheck passes), or the status command exits 0. */
export async function runtimeCheck(check: RuntimeCheck, deps: CheckDeps): Promise<CheckResult> {
  const started = deps.clock.now();
  if (!deps.runtime) {
    return {
      ok: false,
      code: 'runtime-error',
      latency_ms: 0,
      detail: 'no runtime to ask (no release is current)',
    };
  }
  try {
    const status = await deps.runtime.status(deps.service, {
      timeoutMs: check.timeout,
      signal: deps.signal,
    });
    const latency_ms = Math.max(0, deps.clock.now() - started);
    if (status.state === 'unknown') {
      const code = status.detail === 'timeout' ? 'timeout' : 'runtime-error';
      return { ok: false, code, latency_ms, detail: status.detail };
    }
    return {
      ok: status.state === 'running',
      code: codes[status.state],
      latency_ms,
      detail: status.detail,
    };
  } catch (error) {
    const latency_ms = Math.max(0, deps.clock.now() - started);
    return { ok: false, code: 'runtime-error', latency_ms, detail: messageOf(error) };
  }
}
