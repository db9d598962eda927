/**
 * At most `max` SSH connections open at once (ssh.max_connections). A host
 * beyond the limit queues for a slot, first come first served, and only then
 * connects, so its connect timeout starts when its turn comes. A connection
 * that nothing is using stays open for the next phase until a queued host
 * needs its slot: then the one idle longest is closed and its slot handed on.
 */
export interface Holder {
  /** close the idle connection; its slot goes to the host that asked */
  evict(): Promise<void>;
}

export class ConnectionSlots {
  private taken = 0;
  /** insertion order: the first is the one idle longest */
  private readonly idle = new Set<Holder>();
  private readonly queue: (() => void)[] = [];

  constructor(readonly max: number) {}

  /** a slot for a new connection: free, taken from an idle one, or awaited in turn */
  async acquire(): Promise<void> {
    if (this.taken < this.max) {
      this.taken += 1;
      return;
    }
    const longest = this.idle.values().next();
    if (!longest.done) {
      this.idle.delete(longest.value);
      await longest.value.evict().catch(() => undefined);
      return;
    }
    await new Promise<void>((resolve) => this.queue.push(resolve));
  }

  /** a connection closed (or never opened): its slot goes to the next in the queue */
  release(holder?: Holder): void {
    if (holder) this.idle.delete(holder);
    const next = this.queue.shift();
    if (next) next();
    else this.taken -= 1;
  }

  /** nothing runs on this connection now: a queued host may have its slot */
  markIdle(holder: Holder): void {
    const next = this.queue.shift();
    if (!next) {
      this.idle.add(holder);
      return;
    }
    void holder
      .evict()
      .catch(() => undefined)
      .finally(next);
  }

  markBusy(holder: Holder): void {
    this.idle.delete(holder);
  }

  /** for tests and the benchmark: connections open now, hosts waiting for one */
  get counts(): { open: number; queued: number; idle: number } {
    return { open: this.taken, queued: this.queue.length, idle: this.idle.size };
  }
}
