import type { Invariant, InvariantId } from './types.js';

/**
 * The deploy.yml key an operator most likely changes to mend a broken
 * invariant, so CI can point at its line. Invariants whose fix is in the
 * balancer's settings (not in deploy.yml) have none.
 */
const KEY: Partial<Record<InvariantId, string>> = {
  'drain-before-stop': 'drain.overlap',
  'request-before-kill': 'drain.stop_timeout',
  capacity: 'rollout.min_healthy',
  'time-back': 'rollout.max_time_back',
  'watchdog-vs-drain': 'watchdog.every',
  'canary-bake': 'rollout.canary.bake',
};

/** a kind's invariant names its own key (Invariant.key) */
export function invariantKey(invariant: Pick<Invariant, 'id' | 'key'>): string | undefined {
  return (
    invariant.key ??
    (Object.hasOwn(KEY, invariant.id) ? KEY[invariant.id as InvariantId] : undefined)
  );
}
