import { labConfig, type Lab, type LabLayout } from '../lab/index.js';
import type { SoakBalancer, SoakRollout } from './soak-schedule.js';

/**
 * The soak's lab has every balancer at once: two HAProxies (lb-a, lb-b) and
 * the ELBv2 endpoint, whose first target group acts on lb-a. Each rollout's
 * deploy.yml names one of them; it is the lab's own labConfig, over the
 * layout as a lab of that one balancer would have it.
 */
function layoutFor(layout: LabLayout, balancer: SoakBalancer): LabLayout {
  const { pair: _lbB, ...single } = layout;
  if (balancer === 'haproxy-pair') return { ...layout, balancer: 'haproxy' };
  return { ...single, balancer: balancer === 'alb' ? 'alb' : 'haproxy' };
}

/** deploy.yml for one scheduled rollout; superseded: skip lets a queued racer with an older release stand down */
export function soakConfig(lab: Lab, rollout: Pick<SoakRollout, 'balancer' | 'drain'>): string {
  const arn = lab.elbv2?.group.arn;
  if (rollout.balancer === 'alb' && !arn)
    throw new Error('the soak lab has no ELBv2 endpoint: start it with balancer alb');
  return labConfig(layoutFor(lab.layout, rollout.balancer), {
    drainMethod: rollout.drain,
    superseded: 'skip',
    ...(rollout.balancer === 'alb' ? { targetGroupArn: arn } : {}),
  });
}

/** The frontends whose clients see the rollout: lb-a always, lb-b when deploy.yml names it too. */
export function frontendsOf(lab: Lab, balancer: SoakBalancer): string[] {
  return (balancer === 'haproxy-pair' ? lab.haproxies : lab.haproxies.slice(0, 1)).map(
    (h) => h.url,
  );
}
