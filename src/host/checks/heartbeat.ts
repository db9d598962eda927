import type { CheckConfig } from '../../config/types.js';
import { readMarks } from '../../health/read-marks.js';
import { marksDir } from '../layout.js';
import type { CheckDeps, CheckResult } from './result.js';

type HeartbeatCheck = Extract<CheckConfig, { kind: 'heartbeat' }>;

/**
 * Workers without a port prove they are alive by touching one mark file per
 * worker slot, in the directory the runtime exports to them as
 * HANDOFF_MARKS_DIR (runtime/marks-env.ts). How many slots there are is what
 * the workers wrote in `expected` (deploy.yml's `expected`, when given, is a
 * minimum), and the marks are read by the same reader as the standalone probe
 * (src/health/read-marks.ts).
 */
export function heartbeatCheck(check: HeartbeatCheck, deps: CheckDeps): Promise<CheckResult> {
  const started = deps.clock.now();
  const report = readMarks(marksDir(deps.state, check.dir), {
    maxAgeMs: check.maxAge,
    expected: check.expected,
    // a slot that (re)started within max_age of the workers' rewrite of `expected`
    // is starting, not missing; a stale mark still fails at once
    startGraceMs: check.maxAge,
    now: started,
  });
  const latency_ms = Math.max(0, deps.clock.now() - started);
  return Promise.resolve({
    ok: report.ok,
    code: report.code,
    latency_ms: report.code === 'no-marks' ? 0 : latency_ms,
    detail:
      report.code === 'no-expected' ? report.line : `${report.line}, within ${check.maxAge} ms`,
  });
}
