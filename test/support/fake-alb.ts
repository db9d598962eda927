import type { TargetState } from '../../src/balancer/balancer.js';
import { ALB_FAIL_OPEN } from '../../src/balancer/alb/fail-open.js';
import type { FailOpenMinimum } from '../../src/balancer/fail-open.js';
import type { HealthCheckSettings } from '../../src/config/types.js';
import type { FakeClock } from './fake-clock.js';
import { FakeBalancer, settings, type FakeHost } from './fake-fleet.js';

/** An ALB target group's fail-open minimum, said in the ALB's words (ALB_FAIL_OPEN). */
export type AlbMinimum = Omit<FailOpenMinimum, 'words'>;

/**
 * The fake balancer with what an ALB adds: a fail-open routing minimum, and
 * targets the group does not have (or has on another port).
 */
export class FakeAlbBalancer extends FakeBalancer {
  readonly unregistered = new Map<string, 'absent' | 'other-port'>();
  constructor(
    hosts: Map<string, FakeHost>,
    clock: FakeClock,
    private readonly minimum: AlbMinimum = { count: 1 },
    s: HealthCheckSettings = settings,
  ) {
    super(hosts, clock, s);
  }
  override register(target?: string): Promise<void> {
    if (target) this.unregistered.delete(target);
    return super.register();
  }
  failOpenMinimum(): Promise<FailOpenMinimum> {
    return Promise.resolve({ ...this.minimum, words: ALB_FAIL_OPEN });
  }
  override async states(targets: readonly string[]): Promise<ReadonlyMap<string, TargetState>> {
    const out = new Map(await super.states(targets));
    for (const [target, why] of this.unregistered)
      out.set(target, {
        target,
        state: 'unused',
        inRotation: false,
        reason:
          why === 'absent'
            ? 'not registered in the target group'
            : 'registered on port 80, not 8080',
        unregistered: why,
      });
    return out;
  }
}
