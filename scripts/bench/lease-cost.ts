/**
 * What the fleet lease cost one `deploy rollout --json`, from its own events:
 * `lease.taken` (its `waited_ms` is the take itself when nobody held the
 * lease, `connect_ms` of it the sessions opened first, which the rollout then
 * uses for its own steps: not the lease's cost) and `lease.released` (giving every piece back, and the renewals made
 * while it was held, every host each time). Take and release are on the
 * rollout's path, before its first step and after its result; the renewals
 * run beside it.
 */
export interface LeaseCost {
  /** the take, less connectMs */
  readonly takeMs: number;
  /** opening every host's agent session: the rollout's own connections, which it reuses after */
  readonly connectMs: number;
  readonly releaseMs: number;
  readonly renewals: number;
  readonly renewMs: number;
}

interface LeaseEvent {
  readonly event?: string;
  readonly fields?: {
    readonly waited_ms?: number;
    readonly connect_ms?: number;
    readonly release_ms?: number;
    readonly renewals?: number;
    readonly renew_ms?: number;
  };
}

export function leaseCost(stdout: string): LeaseCost {
  const events = stdout
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as LeaseEvent);
  const taken = events.find((e) => e.event === 'lease.taken')?.fields;
  const released = events.find((e) => e.event === 'lease.released')?.fields;
  if (taken?.waited_ms === undefined || released?.release_ms === undefined)
    throw new Error('deploy rollout --json said no lease.taken or lease.released with its figures');
  const connectMs = taken.connect_ms ?? 0;
  return {
    takeMs: taken.waited_ms - connectMs,
    connectMs,
    releaseMs: released.release_ms,
    renewals: released.renewals ?? 0,
    renewMs: released.renew_ms ?? 0,
  };
}

/** `take 40 (after connecting 350) · release 12 · 4 renewals, 30 ms` */
export function formatLeaseCost(c: LeaseCost): string {
  const r = (n: number) => Math.round(n);
  return `take ${r(c.takeMs)} (after connecting ${r(c.connectMs)}) · release ${r(c.releaseMs)} · ${c.renewals} renewals, ${r(c.renewMs)} ms`;
}
