import type { HealthCheckSettings } from '../config/types.js';
import type { Balancer, BalancerReload, TargetState } from './balancer.js';
import { combineStates } from './set-states.js';

/** One balancer of the set, and how it names the hosts. */
export interface Member {
  readonly name: string;
  readonly balancer: Balancer;
  /** hosts[].target → this balancer's target; a target not here is the same at this balancer */
  readonly targets: ReadonlyMap<string, string>;
}

/**
 * Every balancer in front of the fleet as one `Balancer`, keyed by the hosts'
 * default targets: a host is out of rotation only when every balancer says
 * so, and in only when every one has it back, so the handshake that waits on
 * one balancer waits on all of them without knowing there are several. A
 * set of one passes its balancer's word through unchanged.
 */
export class BalancerSet implements Balancer {
  readonly kind: Balancer['kind'];
  /** every member blind: none can tell (a blind one is never beside one with an API) */
  readonly blind: boolean;

  constructor(readonly members: readonly Member[]) {
    const first = members[0];
    if (!first) throw new Error('a balancer set needs at least one balancer');
    this.kind = first.balancer.kind;
    this.blind = members.every((m) => m.balancer.blind === true);
  }

  targetAt(member: Member, target: string): string {
    return member.targets.get(target) ?? target;
  }

  /**
   * One set of settings for callers that take one (a slow start, a dry run's
   * timeline): each the slowest of any balancer. Bounds and invariants are
   * taken per balancer (timing/slowest.ts), since a mix of two balancers'
   * numbers belongs to neither.
   */
  async settings(): Promise<HealthCheckSettings> {
    return envelope(await this.each((m) => m.balancer.settings()));
  }

  async states(targets: readonly string[]): Promise<ReadonlyMap<string, TargetState>> {
    const views = await this.each(async (m) => {
      const mine = await m.balancer.states(targets.map((t) => this.targetAt(m, t)));
      return { name: m.name, state: (t: string) => mine.get(this.targetAt(m, t)) };
    });
    return new Map(targets.map((t) => [t, combineStates(t, views)]));
  }

  /** on each; one refusal does not stop the others, and the first is what the caller sees */
  async deregister(target: string): Promise<void> {
    await this.each((m) => m.balancer.deregister(this.targetAt(m, target)), { all: true });
  }

  async register(target: string): Promise<void> {
    await this.each((m) => m.balancer.register(this.targetAt(m, target)), { all: true });
  }

  async proveRegister(registeredTarget: string): Promise<void> {
    await this.each(
      (m) => m.balancer.proveRegister?.(this.targetAt(m, registeredTarget)) ?? Promise.resolve(),
    );
  }

  /** each member's reloads, named by the member when there are several */
  onReload(listener: (reload: BalancerReload) => void): () => void {
    const several = this.members.length > 1;
    const offs = this.members.map(
      (m) =>
        m.balancer.onReload?.((r) => listener(several ? { ...r, balancer: m.name } : r)) ??
        (() => undefined),
    );
    return () => {
      for (const off of offs) off();
    };
  }

  async close(): Promise<void> {
    await Promise.allSettled(this.members.map((m) => m.balancer.close()));
  }

  /**
   * Runs `call` on every member at once. An error names the balancer when
   * there are several. `all`: wait for every call to settle before throwing,
   * so a refusal on one balancer still leaves the others changed as asked.
   */
  private async each<T>(
    call: (m: Member) => Promise<T>,
    { all = false }: { all?: boolean } = {},
  ): Promise<T[]> {
    const named = (m: Member) =>
      call(m).catch((error: unknown) => {
        throw this.members.length > 1 ? nameError(m.name, error) : error;
      });
    if (!all) return Promise.all(this.members.map(named));
    const settled = await Promise.allSettled(this.members.map(named));
    const failed = settled.find((s) => s.status === 'rejected');
    if (failed) throw failed.reason;
    return settled.map((s) => (s as PromiseFulfilledResult<T>).value);
  }
}

/** Keeps the error's class (and exit code); only says which balancer answered so. */
export function nameError(name: string, error: unknown): unknown {
  if (error instanceof Error && !error.message.startsWith(`${name}: `))
    error.message = `${name}: ${error.message}`;
  return error;
}

/** Each setting the slowest of any balancer's. */
export function envelope(all: readonly HealthCheckSettings[]): HealthCheckSettings {
  return all.reduce(slowest);
}

function slowest(a: HealthCheckSettings, b: HealthCheckSettings): HealthCheckSettings {
  const max = (x: number | undefined, y: number | undefined) =>
    x === undefined ? y : y === undefined ? x : Math.max(x, y);
  const deregistrationDelay = max(a.deregistrationDelay, b.deregistrationDelay);
  const slowStart = max(a.slowStart, b.slowStart);
  const idleTimeout = max(a.idleTimeout, b.idleTimeout);
  // an unknown delay says where it is set, whichever balancer does not know it
  const delaySetting = a.deregistrationDelaySetting ?? b.deregistrationDelaySetting;
  return {
    interval: Math.max(a.interval, b.interval),
    timeout: Math.max(a.timeout, b.timeout),
    unhealthyThreshold: Math.max(a.unhealthyThreshold, b.unhealthyThreshold),
    healthyThreshold: Math.max(a.healthyThreshold, b.healthyThreshold),
    ...(deregistrationDelay !== undefined && { deregistrationDelay }),
    ...(deregistrationDelay === undefined &&
      delaySetting !== undefined && {
        deregistrationDelaySetting: delaySetting,
      }),
    ...(slowStart !== undefined && { slowStart }),
    ...(idleTimeout !== undefined && { idleTimeout }),
  };
}

/** The members of a balancer: a set's, or the one balancer itself (a test's fake, say). */
export function membersOf(balancer: Balancer): readonly Member[] {
  return balancer instanceof BalancerSet
    ? balancer.members
    : [{ name: balancer.kind, balancer, targets: new Map() }];
}
