import { formatMs } from '../rollout/recorder.js';
import type { Plan } from '../rollout/plan.js';
import type { HostOutcome, RolloutResult } from '../rollout/types.js';

export function renderPlan(plan: Plan): string {
  const waves = plan.waves.map((w, i) => `  wave ${i + 1}: ${w.map((h) => h.name).join(', ')}`);
  return [
    `release ${plan.release}: ${plan.waves.flat().length} host(s), ${plan.batch} at a time`,
    ...waves,
  ].join('\n');
}

function hostLine(o: HostOutcome): string {
  const steps = o.steps
    .map((s) => `${s.step} ${formatMs(s.duration_ms)}${s.ok ? '' : ' ✗'}`)
    .join(' · ');
  const mark = o.result === 'deployed' ? '✓' : '✗';
  return `${mark} ${o.host.padEnd(12)} ${o.result.padEnd(12)} ${steps}`;
}

/** The per-host timeline and, on failure, where it stopped and what is left to do. */
export function renderResult(r: RolloutResult): string {
  const lines = r.hosts.map(hostLine);
  if (r.notReached.length > 0) lines.push(`  not reached (untouched): ${r.notReached.join(', ')}`);
  if (r.blocked) lines.push(`stopped before the next wave: ${r.blocked}`);
  if (r.prepareFailed) lines.push(`stopped before the next wave: ${r.prepareFailed}`);
  const failed = r.hosts.find((h) => h.result !== 'deployed');
  if (failed) {
    lines.push(
      `stopped at ${failed.stoppedAt ?? '?'} on ${failed.host}: ${failed.error ?? failed.result}`,
    );
    const drained = r.hosts.filter((h) => h.leftDrained).map((h) => h.host);
    if (drained.length > 0)
      lines.push(`left DRAINED: ${drained.join(', ')} ('deploy undrain HOST' once it is fixed)`);
  }
  lines.push(
    `${r.ok ? 'deployed' : 'rollout failed'}: release ${r.release} in ${formatMs(r.elapsed_ms)}`,
  );
  return lines.join('\n');
}

/** The one-line reason the process exits 1. */
export function failureMessage(r: RolloutResult): string {
  const failed = r.hosts.find((h) => h.result !== 'deployed');
  if (!failed) return `rollout of ${r.release} stopped before it finished`;
  const what = failed.result === 'rolled-back' ? 'rolled back' : failed.result;
  const rest = r.notReached.length > 0 ? `; ${r.notReached.join(', ')} not reached` : '';
  return `rollout of ${r.release} ${what} on ${failed.host} at ${failed.stoppedAt ?? '?'}${rest}`;
}
