import { readFileSync, readlinkSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { processStartTime } from '../../../../src/host/process-start.js';
import { compareReleaseIds } from '../../../../src/release-id.js';
import {
  ciJobUrl,
  holderGone,
  leaseRequest,
  thisProcess,
} from '../../../../src/rollout/lease/holder.js';
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
  const machine = { boot: 'b00t', pidns: 'pid:[4026531836]' };
  const self = { user: 'bob', host: 'laptop', pid: 99, process: { ...machine, start: '500' } };
  const holder = {
    user: 'alice',
    host: 'laptop',
    pid: 4242,
    process: { ...machine, start: '123' },
  };
  const absent = () => undefined;

  it('is one of this machine and PID namespace whose pid no longer exists', () => {
    expect(holderGone(holder, self, absent)).toEqual({
      gone: true,
      why: 'that process is gone from this machine and PID namespace (pid 4242 does not exist)',
    });
  });
  it('is one whose pid is another process now (another start time)', () => {
    expect(holderGone(holder, self, () => '777')).toMatchObject({ gone: true });
    expect(holderGone(holder, self, () => '123')).toEqual({ gone: false });
  });
  it('is never one of another PID namespace of this machine, though it shares the host name and its pid is absent here', () => {
    const elsewhere = { ...holder, process: { ...holder.process, pidns: 'pid:[4026532999]' } };
    expect(holderGone(elsewhere, self, absent)).toEqual({
      gone: false,
      why: 'it shares this machine, but not this PID namespace',
    });
  });
  it('is never one of another machine of the same name (another boot id)', () => {
    const other = { ...holder, process: { ...holder.process, boot: 'other' } };
    expect(holderGone(other, self, absent)).toMatchObject({ gone: false });
  });
  it('is never one whose lease does not say which process it is (an older handoff), nor one taken by such a deployer', () => {
    const { process: _held, ...old } = holder;
    const { process: _mine, ...blind } = self;
    expect(holderGone(old, self, absent)).toMatchObject({ gone: false });
    expect(holderGone(holder, blind, absent)).toMatchObject({ gone: false });
  });
  it('is never one of another host name, whatever its pid', () => {
    expect(holderGone(holder, { ...self, host: 'ci-runner' }, absent)).toEqual({ gone: false });
  });
  it('asks the real process table by default: this process is alive', () => {
    const me = thisProcess(process.pid);
    expect(me).toBeDefined();
    const alive = { ...holder, pid: process.pid, ...(me ? { process: me } : {}) };
    expect(holderGone(alive, { ...self, ...(me ? { process: me } : {}) })).toEqual({ gone: false });
  });
  it('this process is named by the boot id, its PID namespace and its start time', () => {
    expect(thisProcess(process.pid)).toEqual({
      boot: readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim(),
      pidns: readlinkSync('/proc/self/ns/pid'),
      start: processStartTime(process.pid),
    });
    // a /proc that is not this PID namespace's says another pid for self: nothing is recorded
    expect(thisProcess(process.pid + 1)).toBeUndefined();
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
