import { describe, expect, it } from 'vitest';
import { supersededBy, supersession } from '../../../../src/rollout/lease/superseded.js';

const run = (id: number, repo = 'acme/shop') => `https://github.com/${repo}/actions/runs/${id}`;
const behind = (release: string, ci?: string) => ({
  release,
  holder: { user: 'ci', host: 'runner', pid: 7, ...(ci !== undefined && { ci }) },
});

describe('rollout.superseded with git SHAs (issue 34)', () => {
  it('never calls a SHA older by its digits: 9e1f00a is not older than 10b2c3d', () => {
    expect(supersededBy('9e1f00a', ['10b2c3d', '10b2c3d'])).toBeUndefined();
    expect(supersession('9e1f00a', ['10b2c3d'])).toEqual({
      kind: 'unordered',
      reason: expect.stringMatching(/look like git SHAs, which have no order/) as string,
    });
  });

  it('orders by the CI runs the fleet lease recorded: the run that started later is newer', () => {
    // this job is run 500; it waited behind run 510, which deployed 10b2c3d: 510 started later
    const order = { ci: run(500), behind: [behind('10b2c3d', run(510))] };
    expect(supersession('9e1f00a', ['10b2c3d', '10b2c3d'], order)).toEqual({
      kind: 'superseded',
      by: '10b2c3d',
      how: 'the fleet lease recorded it from CI run 510, started after this run (500)',
    });
    // the other way round: the live release's run is older, so this job deploys
    const older = { ci: run(520), behind: [behind('10b2c3d', run(510))] };
    expect(supersession('9e1f00a', ['10b2c3d'], older)).toBeUndefined();
  });

  it('cannot tell from runs of another repository, or a holder that recorded none, and says so', () => {
    const otherRepo = { ci: run(500), behind: [behind('10b2c3d', run(510, 'acme/other'))] };
    expect(supersession('9e1f00a', ['10b2c3d'], otherRepo)?.kind).toBe('unordered');
    const noCi = { ci: run(500), behind: [behind('10b2c3d')] };
    expect(supersession('9e1f00a', ['10b2c3d'], noCi)?.kind).toBe('unordered');
  });

  it('still orders ids of one shape by their digit runs, and refuses ids of different shapes', () => {
    expect(supersededBy('r9', ['r10'])).toBe('r10');
    expect(supersededBy('2026-11-30.9', ['2026-11-30.10'])).toBe('2026-11-30.10');
    expect(supersession('r9', ['v10'])?.kind).toBe('unordered');
    expect(supersededBy('r11', ['r10'])).toBeUndefined();
  });

  it('a CI run order wins over the ids', () => {
    // r9's run started after r10's (a re-numbered release): the ids would call it older
    const order = { ci: run(600), behind: [behind('r10', run(590))] };
    expect(supersession('r9', ['r10'], order)).toBeUndefined();
  });
});
