import type { RolloutResult, StepName } from '../../src/rollout/types.js';

/**
 * Where a rollout's time went that was not a wait, from its own step timeline
 * (offsets from the rollout's start): before the first step (preflight, the
 * plan, connecting), the steps that are handoff's work, the gaps between two
 * steps of one host and between one host's last step and the next host's first
 * (between waves), and after the last step (the end of the rollout: what each
 * host ended on, the receipt, pruning, the result). Each in ms per host; their
 * sum is the P2 overhead, less any time two hosts' steps overlapped.
 */
export interface P2Phases {
  readonly preflight: number;
  readonly steps: number;
  readonly withinHost: number;
  readonly betweenHosts: number;
  readonly end: number;
}

export function p2Phases(result: RolloutResult, waits: readonly StepName[]): P2Phases {
  const timeline = result.hosts
    .flatMap((h) => h.steps.map((s) => ({ host: h.host, ...s })))
    .sort((a, b) => a.offset_ms - b.offset_ms);
  const hosts = Math.max(1, result.hosts.length);
  const phases = { preflight: 0, steps: 0, withinHost: 0, betweenHosts: 0, end: 0 };
  let reached = 0;
  let lastHost: string | undefined;
  for (const s of timeline) {
    const gap = Math.max(0, s.offset_ms - reached);
    if (lastHost === undefined) phases.preflight += gap;
    else if (lastHost === s.host) phases.withinHost += gap;
    else phases.betweenHosts += gap;
    if (!waits.includes(s.step)) phases.steps += s.duration_ms;
    reached = Math.max(reached, s.offset_ms + s.duration_ms);
    lastHost = s.host;
  }
  if (timeline.length === 0) phases.preflight = result.elapsed_ms;
  else phases.end = Math.max(0, result.elapsed_ms - reached);
  return {
    preflight: phases.preflight / hosts,
    steps: phases.steps / hosts,
    withinHost: phases.withinHost / hosts,
    betweenHosts: phases.betweenHosts / hosts,
    end: phases.end / hosts,
  };
}

/** `preflight 120 · steps 140 · within hosts 30 · between hosts 60 · end 200` (ms per host) */
export function formatPhases(p: P2Phases): string {
  const r = (n: number) => Math.round(n);
  return `preflight ${r(p.preflight)} · steps ${r(p.steps)} · within hosts ${r(p.withinHost)} · between hosts ${r(p.betweenHosts)} · end ${r(p.end)}`;
}
