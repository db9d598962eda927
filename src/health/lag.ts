import type { Clock } from '../clock.js';

/**
 * Event-loop lag as the worst delay of a timer within a sliding window. The
 * mean would hide a 600 ms stall among a hundred 1 ms samples; the maximum
 * keeps the service out until the window has passed the stall.
 */
export class LagWindow {
  private samples: { at: number; lagMs: number }[] = [];

  constructor(private readonly windowMs: number) {}

  record(at: number, lagMs: number): void {
    this.samples.push({ at, lagMs });
    this.forget(at);
  }

  max(now: number): number {
    this.forget(now);
    let worst = 0;
    for (const s of this.samples) worst = Math.max(worst, s.lagMs);
    return worst;
  }

  private forget(now: number): void {
    const first = this.samples.findIndex((s) => now - s.at <= this.windowMs);
    this.samples = first < 0 ? [] : this.samples.slice(first);
  }
}

/** A timer that records how late it fires; unref'd, so it never keeps a process alive. */
export function sampleLag(window: LagWindow, intervalMs: number, clock: Clock): () => void {
  let expected = clock.now() + intervalMs;
  const timer = setInterval(() => {
    const now = clock.now();
    window.record(now, Math.max(0, now - expected));
    expected = now + intervalMs;
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
