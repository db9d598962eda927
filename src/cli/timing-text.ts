import {
  formatDuration,
  renderInvariants,
  renderTimeline,
  type BalancerModel,
  type SlowestBounds,
} from '../timing/index.js';

/**
 * The timeline of the slowest balancer, the bounds when there are several, and
 * every balancer's invariants (the shared ones and its kind's): what `deploy
 * check` and a dry run print alike.
 */
export function renderModels(
  models: readonly BalancerModel[],
  slowest: BalancerModel,
  bounds: SlowestBounds,
): string {
  const several = models.length > 1;
  const lines = [renderTimeline(slowest.model.timeline)];
  if (several)
    lines.push(
      `await-out bound ${formatDuration(bounds.awaitOut.ms)} set by ${bounds.awaitOut.by}; await-in bound ${formatDuration(bounds.awaitIn.ms)} set by ${bounds.awaitIn.by}`,
    );
  for (const m of models) {
    lines.push('');
    if (several) lines.push(`invariants on ${m.name}:`);
    lines.push(renderInvariants(m.model.invariants));
  }
  return lines.join('\n');
}
