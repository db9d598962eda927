import { formatDuration as fmt } from './duration.js';
import type { Invariant, Phase, Timeline } from './types.js';

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

/** Columns [from, to) of a phase's bar; a phase that takes any time gets at least one column. */
function span(phase: Phase, total: number, width: number): [number, number] {
  if (total === 0) return [0, 0];
  const from = Math.round((phase.offset / total) * width);
  const to = Math.round(((phase.offset + phase.duration) / total) * width);
  if (phase.duration === 0 || to > from) return [from, to];
  return from < width ? [from, from + 1] : [width - 1, width];
}

function bar(phase: Phase, total: number, width: number): string {
  const [from, to] = span(phase, total, width);
  return `${' '.repeat(from)}${'█'.repeat(to - from)}${' '.repeat(width - to)}`;
}

/**
 * One row per phase: name, offset from the drain, worst-case duration, a bar
 * scaled to the host window, and where the bound comes from.
 */
export function renderTimeline(timeline: Timeline, width = 40): string {
  const rows = timeline.phases.map((p) => ({
    p,
    offset: fmt(p.offset),
    duration: fmt(p.duration),
  }));
  const idWidth = Math.max(...rows.map((r) => r.p.id.length));
  const offWidth = Math.max(...rows.map((r) => r.offset.length));
  const durWidth = Math.max(...rows.map((r) => r.duration.length));
  const lines = rows.map(
    (r) =>
      `${r.p.id.padEnd(idWidth)}  ${r.offset.padStart(offWidth)}  ${r.duration.padStart(durWidth)}  |${bar(r.p, timeline.hostWindow, width)}|  ${r.p.basis}`,
  );
  const waves =
    timeline.canaryHosts > 0
      ? `a canary of ${plural(timeline.canaryHosts, 'host')}, then ${plural(timeline.waves - 1, 'wave')} of ${plural(timeline.batchSize, 'host')}`
      : `${plural(timeline.waves, 'wave')} of ${plural(timeline.batchSize, 'host')}`;
  const baking =
    timeline.bakingMs > 0 ? ` (${fmt(timeline.bakingMs)} of it baking and watching)` : '';
  lines.push(
    `per host ${fmt(timeline.hostWindow)} (drain to verified ${fmt(timeline.unhealthyWindow)}); ` +
      `${waves}: rollout at worst ${fmt(timeline.rolloutWorstCase)}${baking}`,
  );
  return lines.join('\n');
}

function marker(i: Invariant): string {
  if (i.ok) return '✓';
  return i.severity === 'error' ? '✗' : '!';
}

/** ✓ holds, ✗ broken error, ! broken warning; then a one-line summary. */
export function renderInvariants(invariants: readonly Invariant[]): string {
  const idWidth = Math.max(0, ...invariants.map((i) => i.id.length));
  const lines = invariants.map((i) => `${marker(i)} ${i.id.padEnd(idWidth)}  ${i.message}`);
  const errors = invariants.filter((i) => !i.ok && i.severity === 'error').length;
  const warnings = invariants.filter((i) => !i.ok && i.severity === 'warning').length;
  lines.push(
    errors + warnings === 0
      ? 'all invariants hold'
      : `${plural(errors, 'error')}, ${plural(warnings, 'warning')}`,
  );
  return lines.join('\n');
}
