import type { Config, HostConfig } from '../../config/types.js';
import type { Bounds } from '../rotation.js';
import type { HostHandshakePlan, PlannedStep } from '../types.js';
import { handshakeList } from './lists.js';

/** The list each host would run, its end included, from the same lists the rollout runs: the dry run's per-host plan. */
export function planHandshakes(
  config: Config,
  bounds: Bounds,
  hosts: readonly HostConfig[],
  liveBefore: ReadonlyMap<string, string | null>,
): HostHandshakePlan[] {
  const list = handshakeList(config, bounds);
  // what is recorded, as it will be: the end's quiet half (the receipt's close) is no line
  const steps: PlannedStep[] = [...list.steps, ...list.end.filter((s) => !s.quiet)].map((s) => ({
    step: s.name,
    ...(s.boundMs === undefined ? {} : { bound_ms: s.boundMs }),
    ...(s.changes === undefined ? {} : { changes: s.changes }),
    ...(s.beside === undefined ? {} : { beside: s.beside }),
  }));
  return hosts.map((h) => ({
    host: h.name,
    release_before: liveBefore.get(h.name) ?? null,
    steps,
  }));
}
