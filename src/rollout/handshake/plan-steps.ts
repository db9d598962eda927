import type { Config, HostConfig } from '../../config/types.js';
import type { Bounds } from '../rotation.js';
import type { HostHandshakePlan, PlannedStep } from '../types.js';
import { handshakeSteps } from './lists.js';

/** The list each host would run, from the same lists the rollout runs: the dry run's per-host plan. */
export function planHandshakes(
  config: Config,
  bounds: Bounds,
  hosts: readonly HostConfig[],
  liveBefore: ReadonlyMap<string, string | null>,
): HostHandshakePlan[] {
  const steps: PlannedStep[] = [
    ...handshakeSteps(config, bounds).map((s) => ({
      step: s.name,
      ...(s.boundMs === undefined ? {} : { bound_ms: s.boundMs }),
      ...(s.changes === undefined ? {} : { changes: s.changes }),
    })),
    { step: 'unlock' },
  ];
  return hosts.map((h) => ({
    host: h.name,
    release_before: liveBefore.get(h.name) ?? null,
    steps,
  }));
}
