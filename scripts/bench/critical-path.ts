/** One host of a rollout's `--json` result: its steps, each with offset and duration. */
export interface HostSteps {
  readonly host: string;
  readonly steps: readonly { step: string; offset_ms: number; duration_ms: number }[];
}

/**
 * A rollout's waves as they ran, read from its steps: a host's turn runs from
 * its `lock` to the end of its last step, and a wave starts once the one
 * before it has ended. The critical path is the sum of each wave's slowest
 * host; the span, the first lock to the last end. Their ratio is what the
 * orchestrator adds between and around the hosts' own work.
 */
export function criticalPath(hosts: readonly HostSteps[]): {
  spanMs: number;
  pathMs: number;
  waves: number;
} {
  const turns = hosts
    .map((h) => {
      const lock = h.steps.find((s) => s.step === 'lock');
      const last = h.steps.at(-1);
      return lock && last
        ? { start: lock.offset_ms, end: last.offset_ms + last.duration_ms }
        : undefined;
    })
    .filter((t) => t !== undefined)
    .sort((a, b) => a.start - b.start);
  let pathMs = 0;
  let waves = 0;
  let slowest = 0;
  let waveEnd = Number.NEGATIVE_INFINITY;
  for (const t of turns) {
    if (t.start >= waveEnd) {
      pathMs += slowest;
      slowest = 0;
      waves += 1;
    }
    waveEnd = Math.max(waveEnd, t.end);
    slowest = Math.max(slowest, t.end - t.start);
  }
  pathMs += slowest;
  const first = turns[0]?.start ?? 0;
  return { spanMs: turns.length > 0 ? waveEnd - first : 0, pathMs, waves };
}
