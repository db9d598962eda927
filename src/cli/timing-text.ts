import {
  formatDuration,
  renderInvariants,
  renderTimeline,
  type FleetTiming,
  type NamedSettings,
} from '../timing/index.js';

/**
 * The timeline of the slowest balancer, the bounds when there are several, and
 * every balancer's invariants (the shared ones and its kind's): what `deploy
 * check` and a dry run print alike.
 */
export function renderModels({ models, slowest, bounds }: FleetTiming): string {
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

/**
 * The `balancers` of `deploy check`'s and a dry run's JSON: each one's
 * settings (and where they were read, when that is known), its invariants,
 * and whether its timeline is the one shown.
 */
export function balancersJson(
  { models, slowest }: FleetTiming,
  each: readonly (NamedSettings & { readonly source?: string })[],
) {
  return models.map((m) => {
    const read = each.find((e) => e.name === m.name);
    return {
      name: m.name,
      settings: read?.settings,
      ...(read?.source !== undefined && { source: read.source }),
      invariants: m.model.invariants,
      slowest: m.name === slowest.name,
    };
  });
}
