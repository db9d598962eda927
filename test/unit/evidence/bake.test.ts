import { describe, expect, it } from 'vitest';
import type { JudgementConfig } from '../../../src/config/types.js';
import { OperationError } from '../../../src/errors.js';
import { bake, type BakeProgress } from '../../../src/evidence/bake.js';
import type { WindowCounts } from '../../../src/evidence/kit/counts.js';
import type { CountWindow, EvidenceSource } from '../../../src/evidence/kit/source.js';
import { FakeClock } from '../../support/fake-clock.js';

const judgement: JudgementConfig = {
  source: 'balancer',
  commandTimeout: 10_000,
  margin: 0.01,
  minRequests: 100,
  inconclusive: 'fail',
  poll: 5_000,
};

/** A source whose every read is the next of `reads` (the last one repeats); throws for an Error. */
function scripted(reads: (Record<string, [number, number]> | Error)[], openError?: Error) {
  let opens = 0;
  const source: EvidenceSource = {
    kind: 'balancer',
    label: 'scripted',
    open: (): Promise<CountWindow> => {
      opens += 1;
      if (openError && opens === 1) return Promise.reject(openError);
      let i = 0;
      return Promise.resolve({
        openedAt: 0,
        read: () => {
          const r = reads[Math.min(i++, reads.length - 1)];
          if (r instanceof Error) return Promise.reject(r);
          return Promise.resolve(
            new Map<string, WindowCounts>(
              Object.entries(r ?? {}).map(([h, [requests, failed]]) => [
                h,
                { kind: 'counted', counts: { requests, failed } },
              ]),
            ),
          );
        },
      });
    },
  };
  return { source, opens: () => opens };
}

const run = (
  source: EvidenceSource,
  clock = new FakeClock(),
  progress: BakeProgress[] = [],
  j = judgement,
) =>
  bake({
    source,
    canary: ['web-1'],
    baseline: ['web-2', 'web-3'],
    durationMs: 30_000,
    judgement: j,
    clock,
    onProgress: (p) => progress.push(p),
  });

describe('bake', () => {
  it('reads every poll for the whole bake and passes a canary as good as its baseline', async () => {
    const progress: BakeProgress[] = [];
    const clock = new FakeClock();
    const { source } = scripted([{ 'web-1': [1000, 0], 'web-2': [1500, 1], 'web-3': [1500, 0] }]);
    const outcome = await run(source, clock, progress);
    expect(outcome).toMatchObject({
      passed: true,
      early: false,
      elapsedMs: 30_000,
      canary: { errors: 0, requests: 1000 },
      baseline: { errors: 1, requests: 3000 },
    });
    expect(clock.sleeps).toEqual([5000, 5000, 5000, 5000, 5000, 5000]);
    expect(progress.map((p) => p.leftMs)).toEqual([25_000, 20_000, 15_000, 10_000, 5_000, 0]);
  });

  it('fails at once, early, a canary whose requests mostly fail', async () => {
    const clock = new FakeClock();
    const { source } = scripted([{ 'web-1': [200, 180], 'web-2': [400, 0], 'web-3': [400, 0] }]);
    const outcome = await run(source, clock);
    expect(outcome).toMatchObject({ passed: false, early: true, elapsedMs: 5000 });
    expect(outcome.reason).toBe(
      'canary 180 errors of 200 requests (90.0 %), baseline 0 errors of 800 requests (0 %): conclusively worse',
    );
  });

  it('retries a read that failed and judges the next one', async () => {
    const { source } = scripted([
      new OperationError('haproxy socket gone'),
      { 'web-1': [1000, 0], 'web-2': [1500, 0], 'web-3': [1500, 0] },
    ]);
    const progress: BakeProgress[] = [];
    expect((await run(source, new FakeClock(), progress)).passed).toBe(true);
    expect(progress[0]?.unread).toBe('haproxy socket gone');
    expect(progress[1]?.unread).toBeUndefined();
  });

  it('is inconclusive, never a pass, when the last read failed', async () => {
    const { source } = scripted([
      { 'web-1': [1000, 0], 'web-2': [1500, 0], 'web-3': [1500, 0] },
      new OperationError('canary command ./c for web-1 did not finish within command_timeout 10s'),
    ]);
    const outcome = await run(source, new FakeClock(), [], { ...judgement, inconclusive: 'pass' });
    expect(outcome).toMatchObject({ passed: true, early: false });
    expect(outcome.reason).toBe(
      'inconclusive (the counts could not be read at the end of the 30s bake: canary command ./c for web-1 did not finish within command_timeout 10s): counts as passed, by inconclusive: pass',
    );
    const strict = await run(scripted([new OperationError('gone')]).source);
    expect(strict.passed).toBe(false);
  });

  it('opens the window again at the next look when the source could not open', async () => {
    const s = scripted(
      [{ 'web-1': [1000, 0], 'web-2': [1500, 0], 'web-3': [1500, 0] }],
      new OperationError('socket gone'),
    );
    expect((await run(s.source)).passed).toBe(true);
    expect(s.opens()).toBe(2);
  });

  it('compares with a rate measured before when given one', async () => {
    const { source } = scripted([{ 'web-1': [1000, 30] }]);
    const outcome = await bake({
      source,
      canary: ['web-1'],
      baseline: { errors: 0, requests: 10_000 },
      durationMs: 10_000,
      judgement,
      clock: new FakeClock(),
    });
    expect(outcome.passed).toBe(false);
    expect(outcome.baseline).toEqual({ errors: 0, requests: 10_000 });
  });

  it('counts a host with no counts as unread', async () => {
    const { source } = scripted([{ 'web-1': [1000, 0], 'web-2': [1500, 0] }]);
    const outcome = await run(source);
    expect(outcome.reason).toContain('no counts for web-3');
  });
});

describe('a bake whose counters restart in its window (issue 34)', () => {
  it('judges the counts since the restart and says it was not the whole window', async () => {
    const reason = 'web-2: counters restarted (a reload or restart)';
    let reads = 0;
    const source: EvidenceSource = {
      kind: 'balancer',
      label: 'restarting',
      open: () =>
        Promise.resolve({
          openedAt: 0,
          read: () => {
            reads += 1;
            // from the third look on, web-2's counters are those since its restart
            const web2: WindowCounts =
              reads < 3
                ? { kind: 'counted', counts: { requests: 300 * reads, failed: 0 } }
                : { kind: 'reset', since: { requests: 200, failed: 0 }, reason };
            return Promise.resolve(
              new Map<string, WindowCounts>([
                ['web-1', { kind: 'counted', counts: { requests: 1000, failed: 0 } }],
                ['web-2', web2],
                ['web-3', { kind: 'counted', counts: { requests: 1500, failed: 0 } }],
              ]),
            );
          },
        }),
    };
    const progress: BakeProgress[] = [];
    const outcome = await run(source, new FakeClock(), progress);
    expect(outcome.passed).toBe(true);
    expect(outcome.reset).toBe(reason);
    expect(outcome.baseline).toEqual({ errors: 0, requests: 1700 });
    expect(outcome.reason).toMatch(
      /\(not the whole window: web-2: counters restarted \(a reload or restart\); judged on the counts since then\)$/,
    );
    expect(progress.map((p) => p.reset)).toEqual([
      undefined,
      undefined,
      reason,
      reason,
      reason,
      reason,
    ]);
  });
});
