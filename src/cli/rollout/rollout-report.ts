import { skippedLine } from '../../rollout/preflight-reach.js';
import { formatMs } from '../../timing/duration.js';
import { receiptLine } from '../../evidence/receipt.js';
import type { Plan } from '../../rollout/plan.js';
import type {
  FleetRollbackResult,
  HostHandshakePlan,
  HostOutcome,
  HostRelease,
  RolloutResult,
} from '../../rollout/types.js';

export function renderPlan(plan: Plan): string {
  const waves = plan.waves.map((w, i) => `  wave ${i + 1}: ${w.map((h) => h.name).join(', ')}`);
  return [
    `release ${plan.release}: ${plan.waves.flat().length} host(s), ${plan.batch} at a time`,
    ...waves,
  ].join('\n');
}

/** A dry run's per-host list: `web-1 (now r1): lock → drain → (warm ≤2.3s beside await-out) → await-out ≤12.5s → …`. */
export function renderHandshakes(plans: readonly HostHandshakePlan[]): string {
  return plans
    .map((p) => {
      const steps = p.steps.map(plannedStep).join(' → ');
      return `${p.host} (now ${p.release_before ?? 'no release'}): ${steps}`;
    })
    .join('\n');
}

/** a step, its bound; one that runs beside another in brackets, saying beside which */
function plannedStep(s: HostHandshakePlan['steps'][number]): string {
  const step = s.bound_ms === undefined ? s.step : `${s.step} ≤${formatMs(s.bound_ms)}`;
  return s.beside === undefined ? step : `(${step} beside ${s.beside})`;
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
  for (const s of r.skipped ?? []) lines.push(`  ${skippedLine(s, r.release)}`);
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
  for (const j of r.judgements ?? [])
    lines.push(`${j.kind} ${j.passed ? 'passed' : 'failed'}: ${j.reason}`);
  if (r.fleetRollback) lines.push(...renderFleetRollback(r.fleetRollback));
  if (r.receipt) lines.push(receiptLine(r.receipt));
  if (r.ended) lines.push(renderEnded(r.ended));
  const n = r.skipped?.length ?? 0;
  const skipped = n > 0 ? `, ${n} host${n === 1 ? '' : 's'} skipped` : '';
  lines.push(
    `${r.ok ? 'deployed' : 'rollout failed'}: release ${r.release} in ${formatMs(r.elapsed_ms)}${skipped}`,
  );
  return lines.join('\n');
}

/** rollout.on_failure rollback: each host's way back, and who stays on the new release. */
function renderFleetRollback(f: FleetRollbackResult): string[] {
  const lines = ['on_failure rollback: the hosts already on the new release, back wave by wave'];
  lines.push(...f.hosts.map(hostLine));
  if (f.blocked) lines.push(`rollback stopped: ${f.blocked}`);
  lines.push(...f.kept.map((k) => `  kept on the new release: ${k.host} (${k.reason})`));
  return lines;
}

/** `ended on: r1 web-1, web-2 · r2 web-3` */
export function renderEnded(ended: readonly HostRelease[]): string {
  const byRelease = new Map<string, string[]>();
  for (const { host, release } of ended) {
    const key = release ?? '(unknown)';
    byRelease.set(key, [...(byRelease.get(key) ?? []), host]);
  }
  const parts = [...byRelease.entries()].map(
    ([release, hosts]) => `${release} ${hosts.join(', ')}`,
  );
  return `ended on: ${parts.join(' · ')}`;
}

/** The one-line reason the process exits 1. */
export function failureMessage(r: RolloutResult): string {
  const judged = r.judgements?.find((j) => !j.passed);
  if (judged) {
    const back = r.fleetRollback
      ? `; ${r.fleetRollback.hosts.filter((h) => h.result === 'deployed').length} of ${r.fleetRollback.hosts.length + r.fleetRollback.kept.length} host(s) on the new release returned to their previous release`
      : '';
    const rest = r.notReached.length > 0 ? `; ${r.notReached.join(', ')} not reached` : '';
    return `rollout of ${r.release} stopped at the ${judged.kind}: ${judged.reason}${back}${rest}`;
  }
  const failed = r.hosts.find((h) => h.result !== 'deployed');
  if (!failed) return `rollout of ${r.release} stopped before it finished`;
  const what = failed.result === 'rolled-back' ? 'rolled back' : failed.result;
  const rest = r.notReached.length > 0 ? `; ${r.notReached.join(', ')} not reached` : '';
  const back = r.fleetRollback
    ? `; on_failure rollback returned ${r.fleetRollback.hosts.filter((h) => h.result === 'deployed').length} of ${r.fleetRollback.hosts.length + r.fleetRollback.kept.length} host(s) to their previous release`
    : '';
  // a lost lock is why the host failed, whatever step it cut short: the one line must say so
  const lock = failed.lockLost ? ', where it lost its host lock' : '';
  return `rollout of ${r.release} ${what} on ${failed.host} at ${failed.stoppedAt ?? '?'}${lock}${rest}${back}`;
}
