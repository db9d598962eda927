import { describe, expect, it } from 'vitest';
import { BlockedError } from '../../../src/errors.js';
import type { HostStatus } from '../../../src/host/agent/types.js';
import { chooseRollbackRelease, resolveRollback } from '../../../src/rollout/rollback-target.js';
import { rollout } from '../../../src/rollout/run-rollout.js';
import { fleet } from '../../support/rollout-fleet.js';
import { ended } from '../../support/handshake.js';

function status(host: string, release: string, previous: string | null, releases: string[]) {
  return {
    host,
    release,
    previous,
    releases,
    lock: { locked: false },
    draining: null,
    watchdog: null,
  } satisfies HostStatus;
}

function fleetOf(...statuses: HostStatus[]): Map<string, HostStatus> {
  return new Map(statuses.map((s) => [s.host, s]));
}

function refusal(fn: () => unknown): BlockedError {
  try {
    fn();
  } catch (error) {
    if (error instanceof BlockedError) return error;
    throw error;
  }
  throw new Error('not refused');
}

describe('choosing the release deploy rollback returns to', () => {
  it('is the previous release every host agrees on', () => {
    const hosts = fleetOf(
      status('web-1', 'r2', 'r1', ['r1', 'r2']),
      status('web-2', 'r2', 'r1', ['r0', 'r1', 'r2']),
    );
    expect(chooseRollbackRelease(hosts)).toBe('r1');
  });

  it('is the ID given, when every host has it', () => {
    const hosts = fleetOf(
      status('web-1', 'r2', 'r1', ['r0', 'r1', 'r2']),
      status('web-2', 'r2', 'r0', ['r0', 'r2']),
    );
    expect(chooseRollbackRelease(hosts, 'r0')).toBe('r0');
  });

  it('refuses, naming each side, when the hosts disagree on the previous release and no ID is given', () => {
    const hosts = fleetOf(
      status('web-1', 'r2', 'r1', ['r1', 'r2']),
      status('web-2', 'r2', 'r0', ['r0', 'r2']),
      status('web-3', 'r2', 'r1', ['r1', 'r2']),
    );
    expect(refusal(() => chooseRollbackRelease(hosts)).message).toBe(
      'rollback: the hosts disagree on the previous release (r1 on web-1, web-3; r0 on web-2); name one: deploy rollback ID; nothing was touched',
    );
  });

  it('refuses, naming the host and what it has, when a host does not have the ID', () => {
    const hosts = fleetOf(
      status('web-1', 'r2', 'r1', ['r1', 'r2']),
      status('web-2', 'r2', 'r1', ['r2']),
    );
    expect(refusal(() => chooseRollbackRelease(hosts, 'r1')).message).toBe(
      'rollback: release r1 is not on web-2 (has r2); nothing was touched',
    );
  });

  it('refuses when no host has a previous release', () => {
    const hosts = fleetOf(status('web-1', 'r1', null, ['r1']));
    expect(refusal(() => chooseRollbackRelease(hosts)).message).toMatch(
      /no host has a previous release; name one/,
    );
  });
});

describe('deploy rollback through the rollout engine', () => {
  it('asks every host, then returns all of them to the previous release with the handshake, publishing nothing', async () => {
    const f = fleet(undefined, 'r2');
    for (const n of [1, 2, 3]) {
      f.host(n).previous = 'r1';
      f.host(n).onDisk = ['r1', 'r2'];
    }
    const release = await resolveRollback(f.deps, f.deps.config.hosts, undefined);
    const result = await rollout(f.deps, {
      release,
      dryRun: false,
      rollback: true,
      publish: false,
    });
    expect(result.ok).toBe(true);
    expect(result.ended).toEqual(ended('r1', 'r1', 'r1'));
    for (const n of [1, 2, 3]) {
      expect(f.actions(n)).toContain('switch r1');
      expect(f.host(n).published).toEqual([]);
      // r1 may predate x-release: verify accepts an answer without it
      expect(f.host(n).lenientVerifies.every(Boolean)).toBe(true);
    }
  });

  it('refuses in preflight, touching no host, when a host lost the release since it was chosen', async () => {
    const f = fleet(undefined, 'r2');
    for (const n of [1, 2, 3]) f.host(n).onDisk = ['r1', 'r2'];
    f.host(3).onDisk = ['r2'];
    const failure = await rollout(f.deps, {
      release: 'r1',
      dryRun: false,
      rollback: true,
      publish: false,
    }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(BlockedError);
    expect((failure as Error).message).toBe(
      'preflight: release r1 is not on web-3 (has r2); nothing was touched',
    );
    for (const n of [1, 2, 3]) expect(f.actions(n)).toEqual([]);
  });
});
