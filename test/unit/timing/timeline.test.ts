import { describe, expect, it } from 'vitest';
import { timingModel } from '../../../src/timing/model.js';
import { input, s } from './fixture.js';

describe('the drain timeline', () => {
  it('lays out every phase of one host with its worst case and offset', () => {
    const { timeline } = timingModel(input());
    expect(timeline.phases).toEqual([
      {
        id: 'drain',
        offset: 0,
        duration: 0,
        basis: 'one command: write the drain marker (or deregister)',
      },
      {
        id: 'await-out',
        offset: 0,
        duration: s(10),
        basis: 'interval 5s × unhealthy_threshold 2 = 10s',
      },
      { id: 'overlap', offset: s(10), duration: s(15), basis: 'drain.overlap' },
      { id: 'stop', offset: s(25), duration: s(150), basis: 'drain.stop_timeout' },
      { id: 'start-verify', offset: s(175), duration: s(120), basis: 'rollout.verify_timeout' },
      {
        id: 'await-in',
        offset: s(295),
        duration: s(10),
        basis: 'interval 5s × healthy_threshold 2 = 10s',
      },
      { id: 'confirm', offset: s(305), duration: s(120), basis: 'rollout.verify_timeout' },
    ]);
  });

  it('sums the host window and the drain-to-verified window', () => {
    const { timeline } = timingModel(input());
    expect([timeline.hostWindow, timeline.unhealthyWindow]).toEqual([s(425), s(295)]);
  });

  it('runs one host per wave with batch 1', () => {
    const { timeline } = timingModel(input({ hosts: 3 }));
    expect(timeline).toMatchObject({ batchSize: 1, waves: 3, rolloutWorstCase: 3 * s(425) });
  });

  it('rounds the waves up when the last batch is partial', () => {
    const { timeline } = timingModel(
      input({ hosts: 4, rollout: { batch: { kind: 'count', count: 3 } } }),
    );
    expect(timeline).toMatchObject({ batchSize: 3, waves: 2, rolloutWorstCase: 2 * s(425) });
  });

  it('never drains more hosts at once than there are', () => {
    const { timeline } = timingModel(
      input({ hosts: 2, rollout: { batch: { kind: 'count', count: 5 } } }),
    );
    expect(timeline).toMatchObject({ batchSize: 2, waves: 1 });
  });

  it('waits the deregistration delay to get out with method deregister', () => {
    const { timeline } = timingModel(
      input({ drain: { method: 'deregister' }, settings: { deregistrationDelay: s(45) } }),
    );
    expect(timeline.phases[1]).toEqual({
      id: 'await-out',
      offset: 0,
      duration: s(45),
      basis: 'deregistration delay 45s',
    });
  });

  it('falls back to max_request when the deregistration delay is unknown', () => {
    const { timeline } = timingModel(input({ drain: { method: 'deregister', maxRequest: s(40) } }));
    expect(timeline.phases[1]).toEqual({
      id: 'await-out',
      offset: 0,
      duration: s(40),
      basis: 'deregistration delay unknown: max_request 40s',
    });
  });

  it('adds slow start to the wait to get back in', () => {
    const { timeline } = timingModel(input({ settings: { slowStart: s(30) } }));
    expect(timeline.phases[5]).toEqual({
      id: 'await-in',
      offset: s(295),
      duration: s(40),
      basis: 'interval 5s × healthy_threshold 2 = 10s + slow_start 30s',
    });
  });
});
