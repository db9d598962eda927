import { describe, expect, it } from 'vitest';
import { renderInvariants, renderTimeline } from '../../../src/timing/render.js';
import type { Invariant, Phase, Timeline } from '../../../src/timing/types.js';
import { s } from './fixture.js';

function timeline(phases: Phase[], extra: Partial<Timeline> = {}): Timeline {
  const last = phases[phases.length - 1];
  const hostWindow = last ? last.offset + last.duration : 0;
  return {
    phases,
    hostWindow,
    unhealthyWindow: hostWindow,
    batchSize: 1,
    waves: 1,
    canaryHosts: 0,
    bakingMs: 0,
    rolloutWorstCase: hostWindow,
    ...extra,
  };
}

describe('renderTimeline', () => {
  it('names the canary wave and the time spent baking', () => {
    const text = renderTimeline(
      timeline([{ id: 'overlap', offset: 0, duration: s(40), basis: 'drain.overlap' }], {
        canaryHosts: 1,
        waves: 3,
        batchSize: 2,
        bakingMs: s(420),
        rolloutWorstCase: s(540),
      }),
      4,
    );
    expect(text.split('\n')[1]).toBe(
      'per host 40s (drain to verified 40s); a canary of 1 host, then 2 waves of 2 hosts: rollout at worst 9m (7m of it baking and watching)',
    );
  });

  it('draws one row per phase with a bar scaled to the host window', () => {
    const text = renderTimeline(
      timeline(
        [
          { id: 'drain', offset: 0, duration: 0, basis: 'marker' },
          { id: 'await-out', offset: 0, duration: s(10), basis: '5s × 2' },
          { id: 'overlap', offset: s(10), duration: s(30), basis: 'drain.overlap' },
        ],
        { unhealthyWindow: s(25), batchSize: 2, waves: 3, rolloutWorstCase: s(120) },
      ),
      8,
    );
    expect(text.split('\n')).toEqual([
      'drain       0s   0s  |        |  marker',
      'await-out   0s  10s  |██      |  5s × 2',
      'overlap    10s  30s  |  ██████|  drain.overlap',
      'per host 40s (drain to verified 25s); 3 waves of 2 hosts: rollout at worst 2m',
    ]);
  });

  it('is forty columns wide unless told otherwise', () => {
    const text = renderTimeline(
      timeline([{ id: 'stop', offset: 0, duration: s(40), basis: 'drain.stop_timeout' }]),
    );
    expect(text.split('\n')[0]).toBe(`stop  0s  40s  |${'█'.repeat(40)}|  drain.stop_timeout`);
  });

  it('gives a phase too short to scale one column where it starts', () => {
    const text = renderTimeline(
      timeline([
        { id: 'overlap', offset: 0, duration: 1, basis: 'a' },
        { id: 'stop', offset: 1, duration: s(10), basis: 'b' },
      ]),
      4,
    );
    expect(text.split('\n')[0]).toBe('overlap   0s  1ms  |█   |  a');
  });

  it('gives a short phase at the very end the last column', () => {
    const text = renderTimeline(
      timeline([
        { id: 'stop', offset: 0, duration: s(10), basis: 'a' },
        { id: 'confirm', offset: s(10), duration: 1, basis: 'b' },
      ]),
      4,
    );
    expect(text.split('\n').slice(0, 2)).toEqual([
      'stop      0s  10s  |████|  a',
      'confirm  10s  1ms  |   █|  b',
    ]);
  });

  it('draws empty bars for a timeline that takes no time', () => {
    const text = renderTimeline(
      timeline([{ id: 'drain', offset: 0, duration: 0, basis: 'marker' }], { waves: 1 }),
      3,
    );
    expect(text.split('\n')).toEqual([
      'drain  0s  0s  |   |  marker',
      'per host 0s (drain to verified 0s); 1 wave of 1 host: rollout at worst 0s',
    ]);
  });
});

describe('renderInvariants', () => {
  const inv = (id: Invariant['id'], severity: Invariant['severity'], ok: boolean): Invariant => ({
    id,
    severity,
    ok,
    message: `${id} says`,
  });

  it('marks holding, broken errors and broken warnings, then counts them', () => {
    const text = renderInvariants([
      inv('capacity', 'error', true),
      inv('keep-alive', 'error', false),
      inv('time-back', 'warning', false),
      inv('watchdog-vs-drain', 'warning', true),
    ]);
    expect(text.split('\n')).toEqual([
      '✓ capacity           capacity says',
      '✗ keep-alive         keep-alive says',
      '! time-back          time-back says',
      '✓ watchdog-vs-drain  watchdog-vs-drain says',
      '1 error, 1 warning',
    ]);
  });

  it('says so when every invariant holds', () => {
    const text = renderInvariants([
      inv('capacity', 'error', true),
      inv('time-back', 'warning', true),
    ]);
    expect(text.split('\n').at(-1)).toBe('all invariants hold');
  });

  it('counts several broken errors without warnings', () => {
    const text = renderInvariants([
      inv('capacity', 'error', false),
      inv('keep-alive', 'error', false),
    ]);
    expect(text.split('\n').at(-1)).toBe('2 errors, 0 warnings');
  });

  it('counts a lone broken warning', () => {
    expect(renderInvariants([inv('time-back', 'warning', false)])).toBe(
      '! time-back  time-back says\n0 errors, 1 warning',
    );
  });
});
