import type { ReportHost } from './model.js';

/** Hosts whose lock windows overlap ran in one wave; the next wave starts after the last unlock. */
export function inferWaves(hosts: readonly ReportHost[]): string[][] {
  const spans = hosts
    .map((h) => {
      const locked = h.steps.filter((s) => s.step !== 'prepare');
      const from = Math.min(...locked.map((s) => s.offsetMs));
      const to = Math.max(...locked.map((s) => s.offsetMs + s.durationMs));
      return { host: h.host, from, to };
    })
    .sort((a, b) => a.from - b.from);
  const waves: string[][] = [];
  let until = -Infinity;
  for (const s of spans) {
    if (s.from >= until || waves.length === 0) waves.push([]);
    waves.at(-1)?.push(s.host);
    until = s.from >= until ? s.to : Math.max(until, s.to);
  }
  return waves;
}
