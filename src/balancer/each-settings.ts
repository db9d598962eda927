import type { NamedSettings } from '../timing/index.js';
import type { Balancer } from './balancer.js';
import { kindNamed } from './kinds.js';
import { membersOf, nameError } from './set.js';

/**
 * Each balancer's settings by its name, read at once, with its kind's own
 * invariants of them (BalancerKind.invariants): what the timing model holds
 * each balancer to.
 */
export async function settingsOfEach(balancer: Balancer): Promise<NamedSettings[]> {
  const members = membersOf(balancer);
  return Promise.all(
    members.map(async (m) => {
      const [settings, kind] = await Promise.all([
        m.balancer.settings().catch((error: unknown) => {
          throw members.length > 1 ? nameError(m.name, error) : error;
        }),
        kindNamed(m.balancer.kind),
      ]);
      return { name: m.name, settings, ...(kind.invariants && { invariants: kind.invariants }) };
    }),
  );
}
