import type { HostOutcome, RolloutResult, StepRecord } from '../rollout/types.js';
import type { Report, ReportStep } from './model.js';
import { inferWaves } from './waves.js';

const step = (s: StepRecord): ReportStep => ({
  step: s.step,
  offsetMs: s.offset_ms,
  durationMs: s.duration_ms,
  ok: s.ok,
  ...(s.bound_ms === undefined ? {} : { boundMs: s.bound_ms }),
  ...(s.detail === undefined ? {} : { detail: s.detail }),
  ...(s.balancers === undefined ? {} : { balancers: s.balancers }),
});

/** A rollout's result as the report draws it, in the process that ran it (the step summary). */
export function reportFromResult(r: RolloutResult): Report {
  const back = new Map((r.fleetRollback?.hosts ?? []).map((h) => [h.host, h.steps.map(step)]));
  const hosts = r.hosts.map((h: HostOutcome) => {
    const rollback = back.get(h.host);
    return {
      host: h.host,
      result: h.result,
      steps: h.steps.map(step),
      leftDrained: h.leftDrained,
      ...(h.error === undefined ? {} : { error: h.error }),
      ...(rollback === undefined ? {} : { rollback }),
    };
  });
  return {
    release: r.release,
    ok: r.ok,
    elapsedMs: r.elapsed_ms,
    waves: inferWaves(hosts),
    hosts,
    notReached: r.notReached,
    judgements: r.judgements ?? [],
    errors: [r.blocked, r.prepareFailed].filter((x): x is string => x !== undefined),
    source: 'the rollout',
  };
}
