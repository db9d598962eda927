/**
 * A read many callers ask for at once (a fleet's hosts polling one balancer):
 * each caller gets an answer from a read that began no earlier than its call,
 * as if it had asked alone, but callers that come while a read is under way
 * share the one read that starts as it ends. At 500 hosts the polls of a wave
 * otherwise asked for, and parsed, the whole backend fifty times at once.
 */
export class FreshRead<T> {
  private running: Promise<T> | undefined;
  private queued: Promise<T> | undefined;

  constructor(private readonly read: () => Promise<T>) {}

  get(): Promise<T> {
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
    const reading = this.read();
    this.running = reading;
    const done = () => {
      if (this.running === reading) this.running = undefined;
    };
    reading.then(done, done);
    return reading;
  }
}
