import type { Clock } from '../../src/clock.js';

/** A clock whose sleeps advance time instantly: a 150 s drain takes microseconds. */
export class FakeClock implements Clock {
  private t: number;
  readonly sleeps: number[] = [];
  constructor(start = Date.UTC(2026, 0, 1)) {
    this.t = start;
  }
  now(): number {
    return this.t;
  }
  advance(ms: number): void {
    this.t += ms;
  }
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    this.sleeps.push(ms);
    this.t += ms;
    return Promise.resolve();
  }
}
