import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { LocalArtifact, ShipResult } from '../../../src/agent-client/host-agent.js';
import { BlockedError, OperationError } from '../../../src/errors.js';
import type { ArtifactState } from '../../../src/protocol/results.js';
import { readArtifact } from '../../../src/rollout/artifact.js';
import { rollout } from '../../../src/rollout/run-rollout.js';
import type { RolloutOptions } from '../../../src/rollout/types.js';
import type { FakeHost } from '../../support/fake-fleet.js';
import { fleet } from '../../support/rollout-fleet.js';
import { scratchDir } from '../../support/scratch.js';

async function tarball(): Promise<string> {
  const file = path.join(await scratchDir('handoff-ship-'), 'app-r2.tgz');
  await writeFile(file, 'the build');
  return file;
}

/** A fake host that receives artifacts (present when it has this sha256) and prunes. */
function receiving(
  host: FakeHost,
  has: string | null = null,
  room: { freeBytes?: number; liveOther?: boolean } = {},
): { pruned: number[] } {
  const record = { pruned: [] as number[] };
  host.answers.artifact = ({ release, sha256 }): Promise<ArtifactState> => {
    host.calls.push(`artifact-state ${release}`);
    if (has === sha256) return Promise.resolve({ present: true });
    return Promise.resolve({ present: false, upload: `/srv/.upload-${release}.tgz`, ...room });
  };
  host.answers.prune = ({ keep }) => {
    record.pruned.push(keep ?? 0);
    return Promise.resolve({ removed: ['r0'], kept: ['r2', 'r1'] });
  };
  Object.assign(host, {
    shipArtifact: (
      release: string,
      a: LocalArtifact,
      onProgress?: (sent: number, total: number) => void,
    ): Promise<ShipResult> => {
      host.calls.push(`ship ${release}`);
      const error = host.failOn.get('ship');
      if (error) return Promise.reject(error);
      if (has === a.sha256) return Promise.resolve({ uploaded: false, bytes: 0 });
      onProgress?.(0, a.bytes);
      onProgress?.(a.bytes, a.bytes);
      return Promise.resolve({ uploaded: true, bytes: a.bytes });
    },
  });
  return record;
}

describe('rollout --artifact', () => {
  it('ships to every host before its publish and before any host is drained, then prunes', async () => {
    const f = fleet();
    const hosts = [1, 2, 3].map((n) => receiving(f.host(n)));
    const options: RolloutOptions = {
      release: 'r2',
      dryRun: false,
      rollback: true,
      artifact: path.join(path.dirname(await tarball()), 'app-{release}.tgz'),
    };
    const result = await rollout(f.deps, options);
    expect(result.ok).toBe(true);
    for (const n of [1, 2, 3]) {
      const calls = f.host(n).calls;
      expect(calls.indexOf('ship r2')).toBeLessThan(calls.indexOf('publish r2'));
      expect(calls.indexOf('publish r2')).toBeLessThan(calls.indexOf('drain'));
    }
    const progress = f.log.events.filter((e) => e.event === 'artifact.progress');
    expect(progress.map((e) => e.host)).toEqual([
      'web-1',
      'web-1',
      'web-2',
      'web-2',
      'web-3',
      'web-3',
    ]);
    expect(progress[1]?.fields).toMatchObject({ bytes: 9, total: 9 });
    expect(hosts.map((h) => h.pruned)).toEqual([[5], [5], [5]]);
    expect(result.pruned).toEqual([
      { host: 'web-1', removed: ['r0'] },
      { host: 'web-2', removed: ['r0'] },
      { host: 'web-3', removed: ['r0'] },
    ]);
  });

  it('a host whose shipment fails stops the rollout at prepare: nothing drained, nothing pruned', async () => {
    const f = fleet();
    const hosts = [1, 2, 3].map((n) => receiving(f.host(n)));
    f.host(1).failOn.set('ship', new OperationError('artifact of release r2 does not extract'));
    const result = await rollout(f.deps, {
      release: 'r2',
      dryRun: false,
      rollback: true,
      artifact: await tarball(),
    });
    expect(result.ok).toBe(false);
    expect(result.prepareFailed).toMatch(
      /^web-1: prepare failed, this wave was not drained: .*does not extract/,
    );
    for (const n of [1, 2, 3]) expect(f.host(n).calls).not.toContain('drain');
    expect(hosts.map((h) => h.pruned)).toEqual([[], [], []]);
    expect(result.pruned).toBeUndefined();
  });

  it('asks every host in preflight: a later wave without room, or whose id is live from another build, stops it before wave 1 drains', async () => {
    const f = fleet();
    receiving(f.host(1));
    receiving(f.host(2), null, { liveOther: true });
    receiving(f.host(3), null, { freeBytes: 5 });
    const failure = await rollout(f.deps, {
      release: 'r2',
      dryRun: false,
      rollback: true,
      artifact: await tarball(),
    }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(BlockedError);
    expect((failure as Error).message.split('\n')).toEqual([
      'preflight: web-2: release r2 is live there from another artifact; ship it under a new release id',
      "preflight: web-3: releases/ has 0.0 MB free; the artifact needs 0.0 MB (0.0 MB uploaded, about 0.0 MB extracted): free space there ('deploy releases' shows each release's size; rollout.keep_releases bounds how many stay); nothing was drained",
    ]);
    for (const n of [1, 2, 3]) {
      expect(f.host(n).calls).toContain('artifact-state r2');
      expect(f.actions(n).filter((c) => !c.startsWith('artifact-state'))).toEqual([]);
    }
  });

  it('a host with room and one with the artifact already pass the preflight ask', async () => {
    const f = fleet();
    const file = await tarball();
    const { sha256 } = await readArtifact(file);
    receiving(f.host(1), sha256);
    receiving(f.host(2), null, { freeBytes: 1_000_000 });
    receiving(f.host(3));
    const result = await rollout(f.deps, {
      release: 'r2',
      dryRun: false,
      rollback: true,
      artifact: file,
    });
    expect(result.ok).toBe(true);
    // asked in preflight, then again by the ship itself
    expect(f.host(2).calls.indexOf('artifact-state r2')).toBeLessThan(
      f.host(2).calls.indexOf('lock'),
    );
  });
});
