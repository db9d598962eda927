/**
 * A read many callers ask for at once (a fleet's hosts polling one balancer):
 * each caller gets an answer from a read that began no earlier than its call,
 * as if it had asked alone, but callers that come while a read is under way
 * share the one read that starts as it ends. At 500 hosts the polls of a wave
 * otherwise asked for, and parsed, the whole backend fifty times at once.
 *
 * A caller may say what it wants of the answer (`get(keys)`): a read is given
 * every key its callers named, so it can leave the rest of the answer unparsed
 * (a host polling its own server does not need the 2 000 others).
 */
export class FreshRead<T, K = never> {
  private running: Promise<T> | undefined;
  private queued: Promise<T> | undefined;
  /** the keys the callers of the next read named */
  private wanted = new Set<K>();

  constructor(private readonly read: (wanted: ReadonlySet<K>) => Promise<T>) {}

  get(keys: Iterable<K> = []): Promise<T> {
    for (const key of keys) this.wanted.add(key);
    const running = this.running;
    if (!running) return this.start();
    this.queued ??= running
      .catch(() => undefined)
      .then(() => {
        this.queued = undefined;
        return this.start();
      });
    return this.queued;
  }

  private start(): Promise<T> {
    const wanted = this.wanted;
    this.wanted = new Set();
    const reading = this.read(wanted);
    this.running = reading;
    const done = () => {
      if (this.running === reading) this.running = undefined;
    };
    reading.then(done, done);
    return reading;
  }
}
