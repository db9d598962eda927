import { describe, expect, it } from 'vitest';
import { LagWindow } from '../../../src/health/lag.js';
import { Watchdogs } from '../../../src/health/watchdogs.js';

describe('event-loop lag over a window', () => {
  it('is the worst sample within the window, not the mean', () => {
    const lag = new LagWindow(10_000);
    lag.record(1_000, 600);
    for (let t = 1_100; t < 5_000; t += 100) lag.record(t, 1);
    expect(lag.max(5_000)).toBe(600);
  });

  it('forgets a stall once the window has passed it', () => {
    const lag = new LagWindow(10_000);
    lag.record(1_000, 600);
    lag.record(2_000, 3);
    expect(lag.max(11_000)).toBe(600);
    expect(lag.max(11_001)).toBe(3);
    expect(lag.max(12_001)).toBe(0);
  });
});

describe('job-loop watchdogs', () => {
  it('names a loop whose last heartbeat is older than its limit', () => {
    const dogs = new Watchdogs({ jobs: 30_000, mail: 60_000 }, 0);
    dogs.heartbeat('jobs', 10_000);
    expect(dogs.stale(40_000)).toEqual([]);
    expect(dogs.stale(40_001)).toEqual([{ name: 'jobs', age_ms: 30_001, limit_ms: 30_000 }]);
  });

  it('counts from creation, so a loop that never ran goes stale too', () => {
    const dogs = new Watchdogs({ jobs: 1_000 }, 0);
    expect(dogs.stale(1_001).map((s) => s.name)).toEqual(['jobs']);
  });

  it('refuses a heartbeat for a loop nobody watches (a typo)', () => {
    expect(() => new Watchdogs({ jobs: 1 }, 0).heartbeat('job', 1)).toThrow(/no such watchdog/);
  });
});
