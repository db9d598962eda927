import { describe, expect, it } from 'vitest';
import { judgeRace, type Exit } from '../../../scripts/bench/soak-race.js';

const result = (fields: Record<string, unknown>): string =>
  JSON.stringify({ event: 'result', schemaVersion: 1, ...fields });
const holder = (release: string): string =>
  `the fleet lease is held (on web-1) by deploy rollout ${release} by bench@lab pid 4242, heartbeat 312ms ago; wait for it, or queue with --wait-lease DURATION`;

const deployedRun = (): Exit => ({
  code: 0,
  stdout: result({ ok: true, exitCode: 0, hosts: [] }),
  stderr: '',
});
const refusedBy = (release: string): Exit => ({
  code: 3,
  stdout: result({ ok: false, exitCode: 3, error: holder(release) }),
  stderr: `deploy: ${holder(release)}\n`,
});
const supersededBehind = (release: string, older: string): Exit => ({
  code: 0,
  stdout: [
    JSON.stringify({
      level: 'info',
      event: 'lease.wait',
      message: `waiting for the fleet lease, held by deploy rollout ${release} by bench@lab pid 4242, heartbeat 1.1s ago (waited 0ms of 5m)`,
    }),
    result({ ok: true, exitCode: 0, superseded: true, release: older, by: release }),
  ].join('\n'),
  stderr: '',
});

describe('judging a race for the fleet lease', () => {
  it('refused: either one may win; the other must exit 3 naming the winner', () => {
    expect(judgeRace('refused', 'r11', 'r10', deployedRun(), refusedBy('r11'))).toEqual({
      note: 'first deployed, second refused (exit 3)',
      live: 'r11',
    });
    expect(judgeRace('refused', 'r11', 'r10', refusedBy('r11'), deployedRun())?.note).toBe(
      'second deployed, first refused (exit 3)',
    );
  });

  it('an exit 3 that names no holder is not a lost race', () => {
    const other: Exit = {
      code: 3,
      stdout: result({ ok: false, exitCode: 3 }),
      stderr: 'preflight: …',
    };
    expect(judgeRace('refused', 'r11', 'r10', deployedRun(), other)).toBeUndefined();
  });

  it('both deployed is no single winner', () => {
    expect(judgeRace('refused', 'r11', 'r10', deployedRun(), deployedRun())).toBeUndefined();
  });

  it('wait-lease: the queued one waited for the winner, then stood down as superseded', () => {
    const won = judgeRace(
      'wait-lease',
      'r21',
      'r20',
      deployedRun(),
      supersededBehind('r21', 'r20'),
    );
    expect(won).toEqual({ note: 'first deployed, second queued then superseded', live: 'r21' });
  });

  it('wait-lease: a queued one that deployed after the winner is not a single deployer', () => {
    const waitedThenDeployed: Exit = {
      ...supersededBehind('r21', 'r20'),
      stdout: result({ ok: true, exitCode: 0, hosts: [] }),
    };
    expect(
      judgeRace('wait-lease', 'r21', 'r20', deployedRun(), waitedThenDeployed),
    ).toBeUndefined();
  });

  it('wait-lease: when the queued one won, the first is refused naming its older release', () => {
    expect(judgeRace('wait-lease', 'r21', 'r20', refusedBy('r20'), deployedRun())).toEqual({
      note: 'second (queued) won, first refused (exit 3)',
      live: 'r20',
    });
  });
});
