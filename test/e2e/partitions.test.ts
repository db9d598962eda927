import { describe, expect, it } from 'vitest';
import { liveReleases } from './fleet-harness.js';
import { expectNothingLost, rolloutThroughFault, usePartitionLab } from './partition-lab.js';

/**
 * Real partitions on the lab's loopback addresses (scripts/lab/faults.ts):
 * iptables rules of this file's subnet only, 127.0.135.0/24.
 */
const lab = usePartitionLab('127.0.135', { releases: ['r2', 'r3'] });
const releases = () => liveReleases((a) => lab.fleet.deploy(a));

/** web-3's SSH cut from everyone: it keeps serving through HAProxy, the orchestrator cannot reach it */
async function cutSsh(): Promise<void> {
  const web3 = lab.fleet.lab.host('web-3');
  await lab.faults.apply({ kind: 'drop', address: web3.address, ports: [web3.sshPort] });
}

describe('a host partitioned from the orchestrator', () => {
  it('with rollout.unreachable fail (the default): exit 3 naming it, nothing changed', async () => {
    await cutSsh();
    try {
      const r = await lab.fleet.deploy(['rollout', '--release', 'r2']);
      expect(r.code, r.stderr).toBe(3);
      expect(r.stderr).toMatch(
        /preflight: web-3: no SSH handshake with 127\.0\.135\.\d+:\d+ within 5s/,
      );
    } finally {
      await lab.faults.heal();
    }
    expect(await releases()).toEqual(['r1', 'r1', 'r1']);
  }, 120_000);

  it('with skip: the others deploy under load with zero failed requests, it is named, exit 4', async () => {
    // deploy.yml's rollout block is part of the host config: set up while every host answers
    await lab.fleet.configure({ skipUnreachable: 1 });
    const run = await rolloutThroughFault(lab, 'r2', cutSsh);
    expect(run.code, run.log).toBe(4);
    expectNothingLost(run);
    const result = run.result as unknown as {
      hosts: { host: string; result: string }[];
      skipped: { host: string; reason: string }[];
      exit_code: number;
    };
    expect(result.hosts.map((h) => [h.host, h.result])).toEqual([
      ['web-1', 'deployed'],
      ['web-2', 'deployed'],
    ]);
    expect(result.skipped.map((s) => s.host)).toEqual(['web-3']);
    expect(run.stderr).toContain(
      'deploy: deployed r2, 1 host skipped (unreachable, not on r2): web-3',
    );
    expect(await releases()).toEqual(['r2', 'r2', 'r1']);
  }, 150_000);

  it('a dry run under the cut names the host a rollout would skip; nothing changes', async () => {
    await cutSsh();
    try {
      const r = await lab.fleet.deploy(['rollout', '--release', 'r3', '--dry-run']);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(
        /^web-3 unreachable: skipped, not on r3 \(no SSH handshake .*\): a rollout now would exit 4$/m,
      );
    } finally {
      await lab.faults.heal();
    }
    expect(await releases()).toEqual(['r2', 'r2', 'r1']);
  }, 120_000);

  it('back, web-3 still answers the release before: deploy verify fails naming it', async () => {
    const verify = await lab.fleet.deploy(['verify']);
    expect(verify.code, verify.stdout + verify.stderr).toBe(1);
    expect(verify.stdout).toContain(
      "web-3 answers r1, the fleet r2 (2 of 3 hosts): a host that missed a rollout; 'deploy rollout --release r2 --hosts web-3' brings it level",
    );
    expect(verify.stderr).toContain('web-3 on r1, not r2');
  }, 60_000);

  it('healed: the next rollout deploys it with the rest, exit 0', async () => {
    const run = await rolloutThroughFault(lab, 'r3', async () => {});
    expect(run.code, run.log).toBe(0);
    expectNothingLost(run);
    expect(await releases()).toEqual(['r3', 'r3', 'r3']);
  }, 150_000);
});
