import type { CheckConfig, ServiceConfig } from '../../config/types.js';
import { heartbeatCheck } from './heartbeat.js';
import { httpCheck } from './http.js';
import type { CheckDeps, CheckResult } from './result.js';
import { runtimeCheck } from './runtime.js';
import { tcpCheck } from './tcp.js';

export type { CheckDeps, CheckResult } from './result.js';

/** Run one service's check. Never throws: a failure is a result with a code. */
export async function runCheck(check: CheckConfig, deps: CheckDeps): Promise<CheckResult> {
  switch (check.kind) {
    case 'http':
      return httpCheck(check, deps);
    case 'tcp':
      return tcpCheck(check, deps);
    case 'heartbeat':
      return heartbeatCheck(check, deps);
    case 'runtime':
      return runtimeCheck(check, deps);
  }
}

/** Every service's check at once, each with its own hard timeout: the results in services' order. */
export async function runChecks(
  services: readonly ServiceConfig[],
  deps: Omit<CheckDeps, 'service'>,
): Promise<{ service: ServiceConfig; result: CheckResult }[]> {
  return Promise.all(
    services.map(async (s) => ({
      service: s,
      result: await runCheck(s.check, { ...deps, service: s.name }),
    })),
  );
}
