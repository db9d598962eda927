import type { CheckConfig } from '../../config/types.js';
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
