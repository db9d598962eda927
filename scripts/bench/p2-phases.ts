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
  const timeline = timelineOf(result);
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

/**
 * The same gaps (within a host and between hosts) on the same timeline, by
 * the two steps around each (`confirm→unlock`), in ms per host: they add up to
 * withinHost + betweenHosts, and say which turn of the handshake they go to.
 */
export function gapsByPair(result: RolloutResult): Map<string, number> {
  const hosts = Math.max(1, result.hosts.length);
  const gaps = new Map<string, number>();
  let reached = 0;
  let last: string | undefined;
  for (const s of timelineOf(result)) {
    const gap = Math.max(0, s.offset_ms - reached);
    if (last !== undefined && gap > 0) {
      const pair = `${last}→${s.step}`;
      gaps.set(pair, (gaps.get(pair) ?? 0) + gap / hosts);
    }
    reached = Math.max(reached, s.offset_ms + s.duration_ms);
    last = s.step;
  }
  return gaps;
}

/**
 * Each host's steps that are no wait, in its order (`web-1: lock 7 · capacity 9`, ms):
 * which host's turn a step was slower on (the last wave has no next wave's prepare beside it).
 */
export function stepsByHost(result: RolloutResult, waits: readonly StepName[]): string {
  return result.hosts
    .map(
      (h) =>
        `${h.host}: ${h.steps
          .filter((s) => !waits.includes(s.step))
          .map((s) => `${s.step} ${Math.round(s.duration_ms)}`)
          .join(' · ')}`,
    )
    .join('; ');
}

function timelineOf(result: RolloutResult) {
  return result.hosts
    .flatMap((h) => h.steps.map((s) => ({ host: h.host, ...s })))
    .sort((a, b) => a.offset_ms - b.offset_ms);
}

/** `confirm→unlock 12, lock→capacity 3` (ms per host), the largest first */
export function formatGaps(gaps: ReadonlyMap<string, number>): string {
  return [...gaps]
    .sort((a, b) => b[1] - a[1])
    .map(([pair, ms]) => `${pair} ${Math.round(ms)}`)
    .join(', ');
}

/** `preflight 120 · steps 140 · within hosts 30 · between hosts 60 · end 200` (ms per host) */
export function formatPhases(p: P2Phases): string {
  const r = (n: number) => Math.round(n);
  return `preflight ${r(p.preflight)} · steps ${r(p.steps)} · within hosts ${r(p.withinHost)} · between hosts ${r(p.betweenHosts)} · end ${r(p.end)}`;
}
