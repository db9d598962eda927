import { describe, expect, it } from 'vitest';
import { compareReleaseIds } from '../../../../src/release-id.js';
import { ciJobUrl, holderGone, leaseRequest } from '../../../../src/rollout/lease/holder.js';
import { supersededBy } from '../../../../src/rollout/lease/superseded.js';

describe('who holds the lease', () => {
  it('names the GitHub Actions run when the job runs there', () => {
    expect(
      ciJobUrl({
        GITHUB_SERVER_URL: 'https://github.com/',
        GITHUB_REPOSITORY: 'acme/shop',
        GITHUB_RUN_ID: '123',
      }),
    ).toBe('https://github.com/acme/shop/actions/runs/123');
    expect(ciJobUrl({ GITHUB_SERVER_URL: 'https://github.com' })).toBeUndefined();
  });

  it('carries user, host, pid, command and release, with a fresh id each run', () => {
    const a = leaseRequest({
      command: 'rollout',
      release: 'r1',
      env: {},
      who: 'alice@laptop',
      pid: 9,
    });
    const b = leaseRequest({ command: 'drain', env: {}, who: 'bob', pid: 10 });
    expect(a).toMatchObject({
      command: 'rollout',
      release: 'r1',
      holder: { user: 'alice', host: 'laptop', pid: 9 },
    });
    expect(b).toMatchObject({ command: 'drain', holder: { user: 'bob', host: 'unknown' } });
    expect(b).not.toHaveProperty('release');
    expect(a.id).not.toBe(b.id);
  });
});

describe('a holder proven gone', () => {
  const holder = { user: 'alice', host: 'laptop', pid: 4242 };
  it('is one of this machine whose pid no longer exists', () => {
    expect(holderGone(holder, 'laptop', () => false)).toBe(true);
    expect(holderGone(holder, 'laptop', () => true)).toBe(false);
  });
  it('is never one of another machine, whatever its pid', () => {
    expect(holderGone(holder, 'ci-runner', () => false)).toBe(false);
  });
  it('asks the real process table by default: this process is alive', () => {
    expect(holderGone({ ...holder, pid: process.pid }, 'laptop')).toBe(false);
  });
});

describe('release order and superseded jobs', () => {
  it('orders digit runs as numbers', () => {
    const ids = ['2026-11-30.10', '2026-11-30.9', 'v1.10', 'v1.9', '2026-12-01.1', 'r2', 'r10'];
    expect([...ids].sort(compareReleaseIds)).toEqual([
      '2026-11-30.9',
      '2026-11-30.10',
      '2026-12-01.1',
      'r2',
      'r10',
      'v1.9',
      'v1.10',
    ]);
    expect(compareReleaseIds('r1', 'r1')).toBe(0);
  });

  it('a waiting job is superseded only when every host runs one newer release', () => {
    expect(supersededBy('r7', ['r8', 'r8'])).toBe('r8');
    expect(supersededBy('r9', ['r8', 'r8'])).toBeUndefined();
    expect(supersededBy('r8', ['r8', 'r8'])).toBeUndefined();
    expect(supersededBy('r7', ['r8', 'r6'])).toBeUndefined();
    expect(supersededBy('r7', [null, 'r8'])).toBeUndefined();
    expect(supersededBy('r7', [])).toBeUndefined();
  });
});
