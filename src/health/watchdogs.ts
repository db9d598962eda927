/** A job loop that has not called `heartbeat(name)` within its limit. */
export interface StaleLoop {
  readonly name: string;
  readonly age_ms: number;
  readonly limit_ms: number;
}

/**
 * Liveness of the service's own loops. The clock starts when the library is
 * created, so a loop that never ran once is stale after its limit too.
 */
export class Watchdogs {
  private readonly last = new Map<string, number>();

  constructor(
    private readonly limits: Readonly<Record<string, number>>,
    startedAt: number,
  ) {
    for (const name of Object.keys(limits)) this.last.set(name, startedAt);
  }

  heartbeat(name: string, now: number): void {
    // a typo would otherwise create a loop nobody watches
    if (!(name in this.limits)) throw new RangeError(`heartbeat('${name}'): no such watchdog`);
    this.last.set(name, now);
  }

  stale(now: number): StaleLoop[] {
    const out: StaleLoop[] = [];
    for (const [name, limit] of Object.entries(this.limits)) {
      const age = now - (this.last.get(name) ?? now);
      if (age > limit) out.push({ name, age_ms: age, limit_ms: limit });
    }
    return out;
  }
}
