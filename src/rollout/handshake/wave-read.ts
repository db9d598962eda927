import type { TargetState } from '../../balancer/balancer.js';
import type { HostConfig } from '../../config/types.js';
import type { HostRead } from '../capacity.js';
import { everyHost, unlessAborted } from './waiting.js';

/** The other hosts' own word and the balancer's states, read together. */
export interface FleetReading {
  readonly reads: readonly HostRead[];
  readonly states: ReadonlyMap<string, TargetState>;
  /** the other hosts not asked: enough of those asked serve (capacity-step.ts) */
  readonly unread: readonly HostConfig[];
}

/**
 * The read of the other hosts that the hosts of one wave share, for the
 * capacity guard (capacity-step.ts). Each host must be judged on a read begun
 * after its own lock, since an operator's `deploy lock exec` or drain can
 * land on any host at any moment. The wave's locks are taken at about the
 * same time but answer over a spread (hundreds of ms at 500 hosts): a read
 * begun at the first lock served only the hosts locked by then, and the rest
 * took a second, so every other host answered two status calls a wave. The
 * read now begins once every host of the wave has its lock or has left
 * (failed before its capacity step): one read, after every lock.
 */
export class WaveRead {
  /** `after`: how many hosts had come when it began; those, and only those, it serves */
  private latest: { readonly after: number; readonly reading: Promise<FleetReading> } | undefined;
  /** the read that starts as `latest` ends, for a host locked after it began */
  private next: Promise<FleetReading> | undefined;
  /** hosts come so far: a host comes with its lock held, so a read begun later is after it */
  private came = 0;
  /** resolves once every host of the wave has come or left */
  private readonly here: Promise<void>;
  private readonly arrived: (host: string) => void;

  constructor(wave: readonly HostConfig[]) {
    let allHere!: () => void;
    this.here = new Promise((resolve) => (allHere = resolve));
    this.arrived = everyHost(wave, () => allHere());
  }

  /** this host's handshake ended before its capacity step: the others do not wait for it */
  leave(host: string): void {
    this.arrived(host);
  }

  /**
   * A host comes with its lock held: resolves, once every host of the wave has
   * come or left, to its turn for `read` (or rejects when `signal` fires: its
   * lock was lost, or the command interrupted).
   */
  async come(host: string, signal: AbortSignal): Promise<number> {
    this.came += 1;
    const turn = this.came;
    this.leave(host);
    await unlessAborted(this.here, signal);
    return turn;
  }

  /**
   * A read begun after the host of `turn` came. One that comes again, or after
   * the read began, takes the read that starts as it ends, with whoever else
   * came meanwhile. Counted, not timed: a read and the last lock often fall in
   * the same millisecond.
   */
  read(turn: number, read: () => Promise<FleetReading>): Promise<FleetReading> {
    const latest = this.latest;
    if (latest && latest.after >= turn) return latest.reading;
    const start = (): Promise<FleetReading> => {
      this.latest = { after: this.came, reading: read() };
      return this.latest.reading;
    };
    if (!latest) return start();
    this.next ??= latest.reading
      .catch(() => undefined)
      .then(() => {
        this.next = undefined;
        return start();
      });
    return this.next;
  }
}
